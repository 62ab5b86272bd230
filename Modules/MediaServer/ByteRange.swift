/// What a `Range` request header asks of a representation of `size` bytes
/// (RFC 9110 §14.1.2, §14.2).
package enum ByteRange: Equatable {
    /// Serve the whole representation with 200: no header, one this server
    /// ignores (not `bytes`, several ranges, malformed — a server may ignore
    /// any, §14.2).
    case whole
    /// Serve these bytes with 206.
    case part(ClosedRange<Int>)
    /// Answer 416: the range starts at or past the end.
    case unsatisfiable

    /// Reads `header` (`nil`: none) for a representation of `size` bytes.
    package init(header: String?, size: Int) {
        guard let header else {
            self = .whole
            return
        }
        let text = header.trimmingWhitespace()
        guard text.count <= 200, text.lowercased().hasPrefix("bytes="), !text.contains(",") else {
            self = .whole
            return
        }
        let spec = text.dropFirst("bytes=".count)
        let bounds = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard bounds.count == 2 else {
            self = .whole
            return
        }
        let first = bounds[0].trimmingWhitespace()
        let last = bounds[1].trimmingWhitespace()
        if first.isEmpty {
            // bytes=-N: the last N bytes.
            guard let count = Self.digits(last) else {
                self = .whole
                return
            }
            self = count == 0 || size == 0 ? .unsatisfiable : .part(max(0, size - count)...(size - 1))
            return
        }
        guard let start = Self.digits(first) else {
            self = .whole
            return
        }
        if last.isEmpty {
            self = start >= size ? .unsatisfiable : .part(start...(size - 1))
            return
        }
        guard let end = Self.digits(last), end >= start else {
            self = .whole
            return
        }
        self = start >= size ? .unsatisfiable : .part(start...min(end, size - 1))
    }

    /// A decimal number of at most 18 digits (no sign, no overflow).
    private static func digits(_ text: Substring) -> Int? {
        guard (1...18).contains(text.count), text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }
}
