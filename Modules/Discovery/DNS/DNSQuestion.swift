/// One entry of a message's question section (RFC 1035 §4.1.2).
///
/// mDNS reuses the top bit of the class as the QU bit: the querier asks for a
/// unicast response (RFC 6762 §5.4). Only class IN is asked for here.
@_spi(Receiver) public struct DNSQuestion: Hashable, Sendable {
    /// The name asked about.
    @_spi(Receiver) public var name: DNSName
    /// The record type asked for; ``DNSRecordType/any`` asks for every type.
    @_spi(Receiver) public var type: DNSRecordType
    /// Whether the querier prefers a unicast response (the QU bit).
    @_spi(Receiver) public var prefersUnicastResponse: Bool

    /// Creates a question for `type` records of `name`, class IN.
    @_spi(Receiver) public init(name: DNSName, type: DNSRecordType, prefersUnicastResponse: Bool = false) {
        self.name = name
        self.type = type
        self.prefersUnicastResponse = prefersUnicastResponse
    }

    /// Whether `record` answers this question.
    @_spi(Receiver) public func isAnswered(by record: DNSResourceRecord) -> Bool {
        record.name == self.name && (self.type == .any || self.type == record.type)
    }
}
