/// A DNS message as mDNS uses it (RFC 1035 §4.1, RFC 6762 §18).
///
/// ```
///  0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15
/// +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
/// |                      ID                       |  0 in multicast mDNS
/// +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
/// |QR|  Opcode   |AA|TC|RD|RA| Z|AD|CD|   RCODE   |  QR=1 response, AA=1 in mDNS responses
/// +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
/// |      QDCOUNT  |  ANCOUNT  |  NSCOUNT  |  ARCOUNT  (16 bits each)
/// +--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+--+
/// | questions: name, type (16), QU bit + class (16)
/// | records:   name, type (16), cache-flush bit + class (16), TTL (32),
/// |            RDLENGTH (16), RDATA
/// ```
///
/// ``init(decoding:)`` and ``encoded()`` convert to and from the wire;
/// names are compressed on encoding.
@_spi(Receiver) public struct DNSMessage: Hashable, Sendable {
    /// The query identifier; 0 in multicast mDNS, echoed in legacy unicast replies (RFC 6762 §18.1).
    @_spi(Receiver) public var id: UInt16
    /// The flags word: QR, opcode, AA, TC, RD, RA, Z, AD, CD, RCODE.
    @_spi(Receiver) public var flags: UInt16
    /// The question section.
    @_spi(Receiver) public var questions: [DNSQuestion]
    /// The answer section.
    @_spi(Receiver) public var answers: [DNSResourceRecord]
    /// The authority section (mDNS probes put proposed records here).
    @_spi(Receiver) public var authorities: [DNSResourceRecord]
    /// The additional section.
    @_spi(Receiver) public var additionals: [DNSResourceRecord]

    /// The flags of an mDNS response: QR and AA set (RFC 6762 §18.2, §18.4).
    @_spi(Receiver) public static let responseFlags: UInt16 = 0x8400
    /// The truncated bit: in a query, more known answers follow in the next datagram (RFC 6762 §7.2).
    @_spi(Receiver) public static let truncatedFlag: UInt16 = 0x0200

    /// Creates a message.
    @_spi(Receiver) public init(
        id: UInt16 = 0,
        flags: UInt16 = 0,
        questions: [DNSQuestion] = [],
        answers: [DNSResourceRecord] = [],
        authorities: [DNSResourceRecord] = [],
        additionals: [DNSResourceRecord] = []
    ) {
        self.id = id
        self.flags = flags
        self.questions = questions
        self.answers = answers
        self.authorities = authorities
        self.additionals = additionals
    }

    /// Whether the message is a response (QR bit).
    @_spi(Receiver) public var isResponse: Bool { self.flags & 0x8000 != 0 }
    /// The opcode; mDNS accepts only 0, a standard query (RFC 6762 §18.3).
    @_spi(Receiver) public var opcode: UInt8 { UInt8((self.flags >> 11) & 0x0F) }
    /// Whether the sender has more known answers in following packets (TC bit, RFC 6762 §7.2).
    @_spi(Receiver) public var isTruncated: Bool { self.flags & 0x0200 != 0 }
    /// The response code; mDNS ignores messages whose code is not 0 (RFC 6762 §18.11).
    @_spi(Receiver) public var responseCode: UInt8 { UInt8(self.flags & 0x000F) }

    /// Every record of the answer and additional sections, the two a querier caches.
    @_spi(Receiver) public var cacheableRecords: [DNSResourceRecord] {
        self.answers + self.additionals
    }
}
