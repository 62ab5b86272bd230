import Testing

@_spi(Receiver) @testable import CastDiscovery
@testable import CastEmulator

/// The emulator responder's answers, without sockets.
@Suite("Emulator mDNS responder records", .timeLimit(.minutes(3)))
struct AdvertisedRecordsTests {
    static let advertisement = CastAdvertisement(id: "0123456789abcdef0123456789abcdef", friendlyName: "Den TV")
    static let records = AdvertisedRecords(
        advertisement, ipv4: [IPAddress.V4("10.0.0.5")!], ipv6: [IPAddress.V6("fe80::5%eth0")!])
    static let service = DNSName("_googlecast._tcp.local")

    @Test("Names and TXT follow real receivers: model prefix ≤ 20 bytes, dashed host, TXT order")
    func namesAndTXT() {
        #expect(Self.advertisement.instanceName == "Chromecast-0123456789abcdef0123456789abcdef")
        #expect(Self.advertisement.hostName == "01234567-89ab-cdef-0123-456789abcdef.local")
        var long = Self.advertisement
        long.modelName = "Google Nest Hub Max Display"
        #expect(long.instanceName == "Google-Nest-Hub-Max--0123456789abcdef0123456789abcdef")
        #expect(
            Self.advertisement.txtAttributes.map(\.key) == [
                "id", "cd", "rm", "ve", "md", "ic", "fn", "ca", "st", "bs", "nf", "rs",
            ])
        #expect(Self.advertisement.txtAttributes.first { $0.key == "ve" }?.value == "05")
        let group = CastAdvertisement.group(id: "33333333-3333-3333-3333-333333333333", friendlyName: "All")
        #expect(group.instanceName == "Google-Cast-Group-33333333333333333333333333333333")
        #expect(group.hostName == "33333333-3333-3333-3333-333333333333.local")
    }

    @Test("Another responder's goodbye to records of ours is rescinded by announcing them again (RFC 6762 §10.1)")
    func rescindsAGoodbyeToItsRecords() throws {
        let group = CastAdvertisement.group(id: "33333333-3333-3333-3333-333333333333", friendlyName: "All")
        let oldLeader = AdvertisedRecords(group, ipv4: [IPAddress.V4("10.0.0.5")!], ipv6: [])
        var moved = group
        moved.port = 42_238
        let newLeader = AdvertisedRecords(moved, ipv4: [IPAddress.V4("10.0.0.6")!], ipv6: [])
        let rescinding = try #require(newLeader.rescinding(oldLeader.goodbye))
        // The shared PTR and TXT come back with their full TTLs; the old SRV and address were never ours.
        #expect(rescinding.isResponse)
        #expect(rescinding.answers == [newLeader.pointer, newLeader.text])
        #expect(newLeader.rescinding(newLeader.announcement) == nil)
        #expect(Self.records.rescinding(oldLeader.goodbye) == nil)
        #expect(newLeader.rescinding(DNSMessage(questions: [DNSQuestion(name: Self.service, type: .ptr)])) == nil)
    }

    @Test("A PTR query is answered with the PTR, and SRV, TXT, addresses and NSECs as additionals")
    func answersPTR() throws {
        let query = DNSMessage(questions: [DNSQuestion(name: Self.service, type: .ptr)])
        let response = try #require(Self.records.response(to: query, legacy: false))
        #expect(response.flags == DNSMessage.responseFlags)
        #expect(response.answers == [Self.records.pointer])
        #expect(response.additionals.map(\.type) == [.srv, .txt, .a, .aaaa, .nsec, .nsec])
        // Link-local zones are local knowledge; they do not go on the wire.
        #expect(response.additionals[3].data == .aaaa(IPAddress.V6("fe80::5")!))
    }

    @Test("Known answers with at least half their TTL are not repeated (RFC 6762 §7.1)")
    func knownAnswerSuppression() {
        let known = DNSMessage(
            questions: [DNSQuestion(name: Self.service, type: .ptr)],
            answers: [Self.records.pointer.withTTL(2250)])
        #expect(Self.records.response(to: known, legacy: false) == nil)
        // Asked for, all known: what the responder counts as suppressed; a question for
        // another service is not asked of it at all.
        #expect(Self.records.isAskedFor(by: known))
        #expect(
            !Self.records.isAskedFor(
                by: DNSMessage(questions: [DNSQuestion(name: DNSName("_airplay._tcp.local"), type: .ptr)])))
        let stale = DNSMessage(
            questions: [DNSQuestion(name: Self.service, type: .ptr)],
            answers: [Self.records.pointer.withTTL(2249)])
        #expect(Self.records.response(to: stale, legacy: false)?.answers == [Self.records.pointer])
    }

    @Test("Legacy unicast queries get their id and questions back, TTLs ≤ 10 s, no cache-flush bits (§6.7)")
    func legacyUnicast() throws {
        let query = DNSMessage(
            id: 0xBEEF, questions: [DNSQuestion(name: Self.records.instance, type: .any, prefersUnicastResponse: true)])
        let response = try #require(Self.records.response(to: query, legacy: true))
        #expect(response.id == 0xBEEF)
        #expect(response.questions == [DNSQuestion(name: Self.records.instance, type: .any)])
        #expect(Set(response.answers.map(\.type)) == [.srv, .txt])
        #expect((response.answers + response.additionals).allSatisfy { $0.ttl <= 10 && !$0.isCacheFlush })
    }

    @Test("Questions about other names, responses and other opcodes get no answer")
    func unrelated() {
        #expect(
            Self.records.response(
                to: DNSMessage(questions: [DNSQuestion(name: DNSName("_airplay._tcp.local"), type: .ptr)]),
                legacy: false) == nil)
        #expect(
            Self.records.response(
                to: DNSMessage(
                    flags: DNSMessage.responseFlags, questions: [DNSQuestion(name: Self.service, type: .ptr)]),
                legacy: false) == nil)
        #expect(
            Self.records.response(
                to: DNSMessage(flags: 0x2800, questions: [DNSQuestion(name: Self.service, type: .ptr)]), legacy: false)
                == nil)
    }

    @Test("Service enumeration names the Cast service (RFC 6763 §9); goodbye zeroes every TTL")
    func enumerationAndGoodbye() throws {
        let query = DNSMessage(questions: [DNSQuestion(name: DNSName("_services._dns-sd._udp.local"), type: .ptr)])
        #expect(
            try #require(Self.records.response(to: query, legacy: false)).answers.map(\.data) == [.ptr(Self.service)])
        #expect(Self.records.goodbye.answers.allSatisfy { $0.ttl == 0 })
        #expect(Self.records.goodbye.answers.count == Self.records.announcement.answers.count)
    }
}
