@_spi(Receiver) import CastDiscovery

/// The DNS records an advertisement amounts to on one interface, and the
/// responder's answers built from them (RFC 6762 §6, RFC 6763 §12).
struct AdvertisedRecords {
    static let serviceType = DNSName("_googlecast._tcp.local")
    /// DNS-SD service enumeration (RFC 6763 §9).
    static let serviceEnumeration = DNSName("_services._dns-sd._udp.local")
    /// The TTL cap for legacy unicast replies (RFC 6762 §6.7).
    static let legacyTTL: UInt32 = 10

    let instance: DNSName
    let host: DNSName
    let pointer: DNSResourceRecord
    let enumeration: DNSResourceRecord
    let service: DNSResourceRecord
    let text: DNSResourceRecord
    let addresses: [DNSResourceRecord]
    let instanceNSEC: DNSResourceRecord
    let hostNSEC: DNSResourceRecord

    init(_ advertisement: CastAdvertisement, ipv4: [IPAddress.V4], ipv6: [IPAddress.V6]) {
        let instance = Self.serviceType.prepending(advertisement.instanceName)
        let host = DNSName(advertisement.hostName)
        let serviceTTL = advertisement.serviceTTL
        let hostTTL = advertisement.hostTTL
        self.instance = instance
        self.host = host
        self.pointer = DNSResourceRecord(name: Self.serviceType, ttl: serviceTTL, data: .ptr(instance))
        self.enumeration = DNSResourceRecord(
            name: Self.serviceEnumeration, ttl: serviceTTL, data: .ptr(Self.serviceType))
        self.service = DNSResourceRecord(
            name: instance,
            ttl: serviceTTL,
            isCacheFlush: true,
            data: .srv(priority: 0, weight: 0, port: UInt16(clamping: advertisement.port), target: host)
        )
        let strings = advertisement.txtAttributes.map { Array("\($0.key)=\($0.value)".utf8.prefix(255)) }
        self.text = DNSResourceRecord(name: instance, ttl: serviceTTL, isCacheFlush: true, data: .txt(strings))
        self.addresses =
            ipv4.map { DNSResourceRecord(name: host, ttl: hostTTL, isCacheFlush: true, data: .a($0)) }
            + ipv6.map { DNSResourceRecord(name: host, ttl: hostTTL, isCacheFlush: true, data: .aaaa($0.inZone(nil))) }
        self.instanceNSEC = DNSResourceRecord(
            name: instance, ttl: serviceTTL, isCacheFlush: true, data: .nsec(next: instance, types: [.txt, .srv]))
        var hostTypes: Set<DNSRecordType> = []
        if !ipv4.isEmpty { hostTypes.insert(.a) }
        if !ipv6.isEmpty { hostTypes.insert(.aaaa) }
        self.hostNSEC = DNSResourceRecord(
            name: host, ttl: hostTTL, isCacheFlush: true, data: .nsec(next: host, types: hostTypes))
    }

    /// Every record the responder owns, as announced.
    var all: [DNSResourceRecord] {
        [self.pointer, self.service, self.text] + self.addresses
    }

    /// The unsolicited response sent on start and on change (RFC 6762 §8.3).
    var announcement: DNSMessage {
        DNSMessage(flags: DNSMessage.responseFlags, answers: self.all)
    }

    /// The goodbye: every record with TTL 0 (RFC 6762 §10.1).
    var goodbye: DNSMessage {
        DNSMessage(flags: DNSMessage.responseFlags, answers: self.all.map { $0.withTTL(0) })
    }

    /// The records of ours that `response` says goodbye to, announced again;
    /// `nil` when it says goodbye to none of them.
    ///
    /// Records are shared: a speaker group's PTR and TXT are announced by
    /// whichever member leads it, so the old leader's goodbye names records
    /// the new leader still owns. RFC 6762 §10.1 gives the other responders
    /// that one second to "rescind" the goodbye by announcing them again.
    func rescinding(_ response: DNSMessage) -> DNSMessage? {
        guard response.isResponse else { return nil }
        let goodbyes = response.answers.filter { $0.ttl == 0 }
        let owned = self.all.filter { record in
            goodbyes.contains { $0.name == record.name && $0.data == record.data }
        }
        return owned.isEmpty ? nil : DNSMessage(flags: DNSMessage.responseFlags, answers: owned)
    }

    /// The answer to `query`, or `nil` when nothing is asked of us or every
    /// answer is already known to the querier (RFC 6762 §7.1).
    ///
    /// A `legacy` query (from a port other than 5353) gets the query's id and
    /// questions back, TTLs capped at 10 s and no cache-flush bits (§6.7).
    func response(to query: DNSMessage, legacy: Bool) -> DNSMessage? {
        guard !query.isResponse, query.opcode == 0 else { return nil }
        var answers: [DNSResourceRecord] = []
        var additionals: [DNSResourceRecord] = []
        for question in query.questions {
            let matching = self.records(answering: question)
            answers += matching.filter { record in !answers.contains(record) && !Self.isKnown(record, in: query) }
            for record in matching {
                additionals += self.additionals(for: record)
            }
        }
        guard !answers.isEmpty else { return nil }
        additionals = additionals.reduce(into: []) { unique, record in
            if !unique.contains(record) && !answers.contains(record) { unique.append(record) }
        }
        var response = DNSMessage(flags: DNSMessage.responseFlags, answers: answers, additionals: additionals)
        if legacy {
            response.id = query.id
            response.questions = query.questions.map { DNSQuestion(name: $0.name, type: $0.type) }
            response.answers = response.answers.map(Self.legacyForm)
            response.additionals = response.additionals.map(Self.legacyForm)
        }
        return response
    }

    /// Whether `query` asks for any of these records (answered or all known).
    func isAskedFor(by query: DNSMessage) -> Bool {
        !query.isResponse && query.opcode == 0 && query.questions.contains { !self.records(answering: $0).isEmpty }
    }

    private func records(answering question: DNSQuestion) -> [DNSResourceRecord] {
        ([self.enumeration] + self.all).filter { question.isAnswered(by: $0) }
    }

    /// What a querier will want next (RFC 6763 §12): SRV, TXT and addresses after a PTR; addresses after an SRV.
    private func additionals(for record: DNSResourceRecord) -> [DNSResourceRecord] {
        switch record.type {
        case .ptr where record == self.pointer:
            [self.service, self.text] + self.addresses + [self.instanceNSEC, self.hostNSEC]
        case .srv:
            self.addresses + [self.hostNSEC]
        default:
            []
        }
    }

    /// Whether the query lists `record` as known with at least half its TTL left.
    private static func isKnown(_ record: DNSResourceRecord, in query: DNSMessage) -> Bool {
        query.answers.contains {
            $0.name == record.name && $0.data == record.data && UInt64($0.ttl) * 2 >= UInt64(record.ttl)
        }
    }

    private static func legacyForm(_ record: DNSResourceRecord) -> DNSResourceRecord {
        var copy = record.withTTL(min(record.ttl, Self.legacyTTL))
        copy.isCacheFlush = false
        return copy
    }
}
