/// Frame ids are counted in 64 bits by each side but travel as their low
/// 8 bits (Docs/spec/cast-streaming.md §4); these recover the full id.
@_spi(Receiver) public enum FrameID {
    /// The full id with low byte `wire` that is at or before `latest`:
    /// how a sender reads a checkpoint (never beyond the last frame it sent).
    @_spi(Receiver) public static func expand(_ wire: UInt8, atOrBefore latest: Int64) -> Int64 {
        latest - Int64((UInt8(truncatingIfNeeded: latest) &- wire))
    }

    /// The full id with low byte `wire` in `(after, after + 256]`: how a
    /// sender reads a NACKed or ACKed frame id beyond its checkpoint.
    @_spi(Receiver) public static func expand(_ wire: UInt8, after checkpoint: Int64) -> Int64 {
        checkpoint + 1 + Int64(wire &- UInt8(truncatingIfNeeded: checkpoint &+ 1))
    }

    /// The full id with low byte `wire` closest to `reference` (within
    /// −128…+127): how a receiver reads the frame id of an arriving packet.
    @_spi(Receiver) public static func expand(_ wire: UInt8, near reference: Int64) -> Int64 {
        let delta = Int64(Int8(bitPattern: wire &- UInt8(truncatingIfNeeded: reference)))
        return reference + delta
    }
}
