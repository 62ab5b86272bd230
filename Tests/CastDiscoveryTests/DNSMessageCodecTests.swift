import CastTestSupport
import Testing

@_spi(Receiver) @testable import CastDiscovery

@Suite("DNS message codec", .timeLimit(.minutes(3)))
struct DNSMessageCodecTests {
    /// python-zeroconf 0.154's announcement of a Chromecast Ultra, captured off a veth link:
    /// PTR, SRV (target compressed against "local"), TXT, NSEC and A, 370 bytes.
    static let zeroconfAnnouncement = bytes(
        "0000840000000005000000000b5f676f6f676c6563617374045f746370056c6f63616c00000c0001000011940034314368726f6d65"
            + "636173742d556c7472612d6131623263336434653566363037313832393361346235633664376538663930c00cc02e002180010000"
            + "0078002d000000001f492461316232633364342d653566362d303731382d323933612d346235633664376538663930c01dc02e00"
            + "1080010000119400aa2369643d61316232633364346535663630373138323933613462356336643765386639302363643d303132"
            + "333435363738394142434445463031323334353637383941424344454603726d3d0576653d3035136d643d4368726f6d65636173"
            + "7420556c7472611269633d2f73657475702f69636f6e2e706e6708666e3d53616c6f6e0963613d3436333336350473743d300f62"
            + "733d464138464341394531423243046e663d310372733dc074002f8001000000780005c074000140c074000180010000007800040a"
            + "090001"
    )

    /// The same stack's probe: one QU question for the instance, the proposed PTR in the authority section.
    static let zeroconfProbe = bytes(
        "0000040000010000000100000b5f676f6f676c6563617374045f746370056c6f63616c00000c8001c00c000c00010000119400343143"
            + "68726f6d65636173742d556c7472612d6131623263336434653566363037313832393361346235633664376538663930c00c"
    )

    static let service = DNSName("_googlecast._tcp.local")
    static let instance = service.prepending("Chromecast-Ultra-a1b2c3d4e5f60718293a4b5c6d7e8f90")
    static let host = DNSName("a1b2c3d4-e5f6-0718-293a-4b5c6d7e8f90.local")

    @Test("A captured python-zeroconf announcement decodes record by record")
    func capturedAnnouncement() throws {
        let message = try DNSMessage(decoding: Self.zeroconfAnnouncement)
        #expect(message.isResponse)
        #expect(message.flags == 0x8400)
        #expect(message.questions.isEmpty)
        #expect(message.answers.count == 5)
        let (ptr, srv, txt, nsec, a) = (
            message.answers[0], message.answers[1], message.answers[2], message.answers[3], message.answers[4]
        )
        #expect(ptr == DNSResourceRecord(name: Self.service, ttl: 4500, data: .ptr(Self.instance)))
        #expect(
            srv
                == DNSResourceRecord(
                    name: Self.instance, ttl: 120, isCacheFlush: true,
                    data: .srv(priority: 0, weight: 0, port: 8009, target: Self.host)))
        guard case .txt(let strings) = txt.data else {
            Issue.record("not TXT: \(txt)")
            return
        }
        #expect(txt.isCacheFlush && txt.ttl == 4500)
        #expect(strings.count == 12)
        #expect(CastDevice.attributes(fromTXT: strings)["fn"] == "Salon")
        #expect(CastDevice.attributes(fromTXT: strings)["md"] == "Chromecast Ultra")
        #expect(
            nsec
                == DNSResourceRecord(
                    name: Self.host, ttl: 120, isCacheFlush: true, data: .nsec(next: Self.host, types: [.a])))
        #expect(
            a == DNSResourceRecord(name: Self.host, ttl: 120, isCacheFlush: true, data: .a(IPAddress.V4("10.9.0.1")!)))
    }

    @Test("A captured probe keeps its QU bit and its authority record")
    func capturedProbe() throws {
        let message = try DNSMessage(decoding: Self.zeroconfProbe)
        #expect(!message.isResponse)
        #expect(message.questions == [DNSQuestion(name: Self.service, type: .ptr, prefersUnicastResponse: true)])
        #expect(message.authorities == [DNSResourceRecord(name: Self.service, ttl: 4500, data: .ptr(Self.instance))])
    }

    @Test("A query encodes to the annotated bytes")
    func queryBytes() throws {
        let query = DNSMessage(
            questions: [DNSQuestion(name: Self.service, type: .ptr, prefersUnicastResponse: true)],
            answers: [DNSResourceRecord(name: Self.service, ttl: 4000, data: .ptr(Self.service.prepending("TV")))]
        )
        let expected: [UInt8] =
            [0x00, 0x00, 0x00, 0x00]  // id 0, flags 0: a standard query
            + [0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00]  // 1 question, 1 known answer
            + [0x0B] + Array("_googlecast".utf8) + [0x04] + Array("_tcp".utf8) + [0x05] + Array("local".utf8) + [0x00]
            + [0x00, 0x0C, 0x80, 0x01]  // PTR, QU bit + class IN
            + [0xC0, 0x0C]  // the answer's name: pointer to offset 12
            + [0x00, 0x0C, 0x00, 0x01]  // PTR, class IN (shared record: no cache-flush bit)
            + [0x00, 0x00, 0x0F, 0xA0]  // TTL 4000
            + [0x00, 0x05]  // RDLENGTH 5
            + [0x02] + Array("TV".utf8) + [0xC0, 0x0C]  // "TV" + pointer to the service name
        #expect(try query.encoded() == expected)
    }

    @Test("Every record type survives encoding and decoding, names compressed")
    func roundTrip() throws {
        let message = DNSMessage(
            id: 0x1234,
            flags: DNSMessage.responseFlags,
            questions: [DNSQuestion(name: Self.host, type: .any)],
            answers: [
                DNSResourceRecord(name: Self.service, ttl: 4500, data: .ptr(Self.instance)),
                DNSResourceRecord(
                    name: Self.instance, ttl: 4500, isCacheFlush: true,
                    data: .srv(priority: 1, weight: 2, port: 32_254, target: Self.host)),
                DNSResourceRecord(
                    name: Self.instance, ttl: 4500, data: .txt([Array("fn=Küche".utf8), [], Array("ca=4101".utf8)])),
                DNSResourceRecord(name: Self.instance, ttl: 1, data: .txt([])),
            ],
            authorities: [
                DNSResourceRecord(
                    name: Self.host, ttl: 120, data: .other(type: DNSRecordType(rawValue: 99), bytes: [1, 2, 3]))
            ],
            additionals: [
                DNSResourceRecord(
                    name: Self.host, ttl: 120, isCacheFlush: true, data: .a(IPAddress.V4("192.168.1.20")!)),
                DNSResourceRecord(
                    name: Self.host, ttl: 120, isCacheFlush: true, data: .aaaa(IPAddress.V6("fe80::1:2")!)),
                DNSResourceRecord(
                    name: Self.host, ttl: 120,
                    data: .nsec(next: Self.host, types: [.a, .aaaa, .nsec, DNSRecordType(rawValue: 1234)])),
            ]
        )
        let bytes = try message.encoded()
        var decoded = try DNSMessage(decoding: bytes)
        // An empty TXT record goes out as one empty string (RFC 6763 §6.1).
        #expect(decoded.answers[3].data == .txt([[]]))
        decoded.answers[3].data = .txt([])
        #expect(decoded == message)
        // Every name after the first mention of a suffix is a 2-byte pointer or ends in one.
        let pointers = zip(bytes, bytes.dropFirst()).filter { $0.0 & 0xC0 == 0xC0 }.count
        #expect(pointers >= 8)
    }

    @Test("Names compare without regard to ASCII case")
    func caseInsensitiveNames() {
        #expect(DNSName("_GoogleCast._TCP.Local") == Self.service)
        #expect(Set([DNSName("A.local"), DNSName("a.LOCAL")]).count == 1)
        #expect(DNSName("Kü.local") != DNSName("KÜ.local"))
        #expect(Self.instance.parent == Self.service)
        #expect(Self.instance.hasSuffix(DNSName("LOCAL")))
    }

    // MARK: Malformed input

    @Test("Every truncation of a captured packet is rejected, none crashes")
    func truncations() {
        for length in 0..<Self.zeroconfAnnouncement.count {
            #expect(throws: DNSMessageError.self) {
                try DNSMessage(decoding: Array(Self.zeroconfAnnouncement.prefix(length)))
            }
        }
    }

    @Test("Compression pointers that loop, point forward or out of range are rejected")
    func badPointers() {
        let header: [UInt8] = [0, 0, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0]
        let record: [UInt8] = [0, 1, 0, 1, 0, 0, 0, 10, 0, 4, 1, 2, 3, 4]
        // The answer's name points at itself.
        #expect(Self.decodingError(header + [0xC0, 12] + record) == DNSMessageError(.pointerLoop, at: 12))
        // A label, then a pointer back to that label: a loop through one step.
        #expect(Self.decodingError(header + [1, 0x61, 0xC0, 12] + record) == DNSMessageError(.pointerLoop, at: 14))
        // Two pointers pointing at each other, reached from a third name.
        let pair: [UInt8] = [0, 0, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0x61, 0xC0, 16, 1, 0x62, 0xC0, 12, 0xC0, 16]
        #expect(Self.decodingError(pair + record)?.code == .pointerLoop)
        // A pointer forward into the record.
        #expect(Self.decodingError(header + [0xC0, 14] + record)?.code == .pointerLoop)
        // A pointer past the end.
        #expect(Self.decodingError(header + [0xFF, 0xFF] + record) == DNSMessageError(.pointerOutOfRange, at: 12))
    }

    @Test("Labels over 63 bytes and names over 255 bytes are rejected")
    func oversizedNames() {
        let header: [UInt8] = [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]
        // Length byte 64 has the reserved 01 prefix.
        #expect(
            Self.decodingError(header + [64] + Array(repeating: 0x61, count: 64) + [0, 0, 1, 0, 1])?.code
                == .reservedLabelType)
        let label = [63] + [UInt8](repeating: 0x61, count: 63)
        let long = label + label + label + label + [0]
        #expect(Self.decodingError(header + long + [0, 1, 0, 1])?.code == .nameTooLong)
        #expect(throws: DNSEncodingError.self) {
            try DNSMessage(questions: [
                DNSQuestion(name: DNSName(labels: [String(repeating: "a", count: 64)]), type: .a)
            ]).encoded()
        }
        #expect(throws: DNSEncodingError.self) {
            try DNSMessage(questions: [
                DNSQuestion(
                    name: DNSName(labels: Array(repeating: String(repeating: "a", count: 63), count: 4)), type: .a)
            ]).encoded()
        }
    }

    @Test("Section counts larger than the packet can hold are rejected before any allocation")
    func absurdCounts() {
        #expect(
            Self.decodingError([0, 0, 0x84, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 1, 0, 1])?.code
                == .countTooLarge)
        #expect(
            Self.decodingError([0, 0, 0x84, 0, 0, 0, 0, 2] + [UInt8](repeating: 0, count: 21))?.code == .countTooLarge)
    }

    @Test("Record data must fill its RDLENGTH exactly and fit its type")
    func badRecordData() {
        let header: [UInt8] = [0, 0, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0]
        // An A record of 5 bytes.
        #expect(
            Self.decodingError(header + [0, 1, 0, 1, 0, 0, 0, 10, 0, 5, 1, 2, 3, 4, 5])?.code == .malformedRecordData)
        // A TXT string running past RDLENGTH.
        #expect(Self.decodingError(header + [0, 16, 0, 1, 0, 0, 0, 10, 0, 2, 5, 0x61])?.code == .malformedRecordData)
        // An SRV whose target name runs past RDLENGTH into the next bytes.
        #expect(
            Self.decodingError(header + [0, 33, 0, 1, 0, 0, 0, 10, 0, 7, 0, 0, 0, 0, 0x1F, 0x49, 1, 0x61, 0])?.code
                == .malformedRecordData)
        // An NSEC bitmap of length 0.
        #expect(Self.decodingError(header + [0, 47, 0, 1, 0, 0, 0, 10, 0, 3, 0, 0, 0])?.code == .malformedRecordData)
    }

    @Test("Random and mutated packets never crash; what decodes re-encodes to the same message")
    func randomInputs() throws {
        var random = SplitMix64(seed: 0x0DD5_EED5)
        var decodedCount = 0
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int(random.next() % 200)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            } else {
                bytes = Self.zeroconfAnnouncement
                for _ in 0..<(1 + random.next() % 4) {
                    bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
                }
            }
            guard let message = try? DNSMessage(decoding: bytes) else { continue }
            decodedCount += 1
            if let reencoded = try? message.encoded() {
                #expect(try DNSMessage(decoding: reencoded) == message)
            }
        }
        #expect(decodedCount > 100, "mutations should often leave a valid packet")
    }

    static func decodingError(_ bytes: [UInt8]) -> DNSMessageError? {
        do {
            _ = try DNSMessage(decoding: bytes)
            return nil
        } catch {
            return error
        }
    }

    static func bytes(_ hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            result.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return result
    }
}
