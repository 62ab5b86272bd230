/// A key a ``TerminalController`` acts on.
public enum TerminalKey: Equatable, Sendable {
    /// The arrow keys.
    case up, down, left, right
    /// Return (or a line feed).
    case enter
    /// Escape alone.
    case escape
    /// Any other key, as the character it typed (Ctrl-C reads as `q`).
    case character(Character)

    /// The keys in what one read of a terminal in raw mode returned: the
    /// arrows as their escape sequences (`ESC [ A`…`D`), the rest byte by
    /// byte; an unknown escape sequence is skipped.
    public static func parse(_ bytes: some Collection<UInt8>) -> [TerminalKey] {
        let bytes = Array(bytes)
        var keys: [TerminalKey] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x1B, index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "[") {
                switch bytes[index + 2] {
                case UInt8(ascii: "A"): keys.append(.up)
                case UInt8(ascii: "B"): keys.append(.down)
                case UInt8(ascii: "C"): keys.append(.right)
                case UInt8(ascii: "D"): keys.append(.left)
                default: break
                }
                index += 3
                continue
            }
            switch byte {
            case 0x1B: keys.append(.escape)
            case 0x0D, 0x0A: keys.append(.enter)
            case 0x03: keys.append(.character("q"))  // Ctrl-C quits, as q does
            default: keys.append(.character(Character(Unicode.Scalar(byte))))
            }
            index += 1
        }
        return keys
    }
}
