@_spi(Receiver) import CastStreaming

/// Bytes from hex digits; spaces are ignored.
func hex(_ text: String) -> [UInt8] {
    Hex.decode(text.replacingOccurrences(of: " ", with: "")) ?? []
}
