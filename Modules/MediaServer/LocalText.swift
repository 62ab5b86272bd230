/// The text of files people keep on disk — subtitles, playlists — whatever
/// encoding and line ends they were written with.
enum LocalText {
    /// The text of `bytes`: UTF-8 or UTF-16 by their byte-order marks, else
    /// UTF-8 when valid, else Windows-1252 (what older subtitle files are in).
    static func decode(_ bytes: [UInt8]) -> String {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            return String(decoding: bytes.dropFirst(3), as: UTF8.self)
        }
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            let littleEndian = bytes[0] == 0xFF
            var units: [UInt16] = []
            units.reserveCapacity(bytes.count / 2)
            var index = 2
            while index + 1 < bytes.count {
                let (low, high) = littleEndian ? (bytes[index], bytes[index + 1]) : (bytes[index + 1], bytes[index])
                units.append(UInt16(high) << 8 | UInt16(low))
                index += 2
            }
            return String(decoding: units, as: UTF16.self)
        }
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return String(bytes.map { Character(Self.windows1252($0)) })
    }

    /// Lines, whatever the line ends (LF, CRLF or CR).
    static func lines(of text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
    }

    /// Windows-1252's 0x80…0x9F; elsewhere it is Latin-1.
    private static func windows1252(_ byte: UInt8) -> Unicode.Scalar {
        let high: [UInt32] = [
            0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152,
            0xFFFD, 0x017D, 0xFFFD, 0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122,
            0x0161, 0x203A, 0x0153, 0xFFFD, 0x017E, 0x0178,
        ]
        guard (0x80...0x9F).contains(byte) else { return Unicode.Scalar(byte) }
        return Unicode.Scalar(high[Int(byte) - 0x80]) ?? "\u{FFFD}"
    }
}

extension StringProtocol {
    /// Without leading and trailing white space.
    func trimmingWhitespace() -> SubSequence {
        guard let first = self.firstIndex(where: { !$0.isWhitespace }),
            let last = self.lastIndex(where: { !$0.isWhitespace })
        else { return self[self.endIndex...] }
        return self[first...last]
    }
}
