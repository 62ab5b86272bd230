/// A domain name as a sequence of labels, `["_googlecast", "_tcp", "local"]`.
///
/// DNS compares names without regard to ASCII case (RFC 1035 §2.3.3), so two
/// names are equal and hash alike when their labels match that way. Labels
/// hold UTF-8 text (RFC 6763 §4.3 allows it in instance names); a label is
/// at most 63 bytes and a whole name at most 255 bytes on the wire.
@_spi(Receiver) public struct DNSName: Hashable, Sendable, CustomStringConvertible {
    /// The labels, most specific first, without the empty root label.
    @_spi(Receiver) public let labels: [String]

    /// The longest label the wire format can carry (RFC 1035 §2.3.4).
    @_spi(Receiver) public static let maximumLabelLength = 63
    /// The longest name the wire format can carry, length bytes and root included.
    @_spi(Receiver) public static let maximumWireLength = 255

    /// Creates a name from its labels.
    @_spi(Receiver) public init(labels: [String]) {
        self.labels = labels
    }

    /// Creates a name from dotted text (`"_googlecast._tcp.local"`; a trailing dot is allowed).
    /// Dots inside a label cannot be expressed this way; use ``init(labels:)`` for such names.
    @_spi(Receiver) public init(_ dotted: String) {
        self.labels = dotted.split(separator: ".", omittingEmptySubsequences: true).map(String.init)
    }

    /// The name with `label` in front: `"_googlecast._tcp.local".prepending("Chromecast-1234")`.
    @_spi(Receiver) public func prepending(_ label: String) -> DNSName {
        DNSName(labels: [label] + self.labels)
    }

    /// The name without its first label; the root stays the root.
    @_spi(Receiver) public var parent: DNSName {
        DNSName(labels: Array(self.labels.dropFirst()))
    }

    /// Whether the name ends with `suffix`, label by label, ignoring ASCII case.
    @_spi(Receiver) public func hasSuffix(_ suffix: DNSName) -> Bool {
        guard suffix.labels.count <= self.labels.count else { return false }
        return DNSName(labels: Array(self.labels.suffix(suffix.labels.count))) == suffix
    }

    /// The bytes this name takes on the wire without compression.
    @_spi(Receiver) public var wireLength: Int {
        self.labels.reduce(1) { $0 + 1 + $1.utf8.count }
    }

    /// The labels folded to ASCII lower case, the form names compare in.
    var canonicalLabels: [String] {
        self.labels.map(Self.foldingASCIICase)
    }

    @_spi(Receiver) public static func == (lhs: DNSName, rhs: DNSName) -> Bool {
        lhs.labels.count == rhs.labels.count && lhs.canonicalLabels == rhs.canonicalLabels
    }

    @_spi(Receiver) public func hash(into hasher: inout Hasher) {
        hasher.combine(self.canonicalLabels)
    }

    /// Dotted text with a trailing dot, `_googlecast._tcp.local.`.
    @_spi(Receiver) public var description: String {
        self.labels.joined(separator: ".") + "."
    }

    private static func foldingASCIICase(_ label: String) -> String {
        String(
            decoding: label.utf8.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 },
            as: UTF8.self
        )
    }
}
