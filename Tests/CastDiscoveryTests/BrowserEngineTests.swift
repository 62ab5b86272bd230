import NIOCore
import Testing

@_spi(Receiver) @testable import CastDiscovery

/// The querier's logic with a fake clock: what it sends when, and what it makes of what it hears.
@Suite("Browser engine", .timeLimit(.minutes(3)))
struct BrowserEngineTests {
    static let service = DNSName("_googlecast._tcp.local")
    static let instance = service.prepending("Chromecast-0123456789abcdef0123456789abcdef")
    static let host = DNSName("01234567-89ab-cdef-0123-456789abcdef.local")
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000_000)

    static func makeEngine(mode: ScanMode = .active) -> BrowserEngine {
        BrowserEngine(
            serviceType: Self.service,
            scanMode: mode,
            timing: BrowserEngine.Timing(
                startDelay: { .zero }, activeMaximumQueryInterval: .seconds(8),
                passiveMaximumQueryInterval: .seconds(64)),
            cache: RecordCache(jitter: { 0 })
        )
    }

    static func at(_ seconds: Double) -> NIODeadline {
        Self.start + .nanoseconds(Int64(seconds * 1e9))
    }

    static func response(
        ttl: UInt32 = 100, txt: [String] = ["id=0123456789abcdef0123456789abcdef", "fn=TV"],
        records: [DNSResourceRecord]? = nil
    ) -> DNSMessage {
        DNSMessage(
            flags: DNSMessage.responseFlags,
            answers: records ?? [
                DNSResourceRecord(name: Self.service, ttl: ttl, data: .ptr(Self.instance)),
                DNSResourceRecord(
                    name: Self.instance, ttl: ttl, isCacheFlush: true,
                    data: .srv(priority: 0, weight: 0, port: 8009, target: Self.host)),
                DNSResourceRecord(
                    name: Self.instance, ttl: ttl, isCacheFlush: true, data: .txt(txt.map { Array($0.utf8) })),
                DNSResourceRecord(name: Self.host, ttl: ttl, isCacheFlush: true, data: .a(IPAddress.V4("10.0.0.7")!)),
            ]
        )
    }

    /// Advances the engine in `step`s from `begin` to `end`, returning the times PTR queries went out.
    static func queryTimes(_ engine: inout BrowserEngine, from begin: Double, to end: Double, step: Double = 0.25)
        -> [Double]
    {
        var times: [Double] = []
        for tick in 0...Int(((end - begin) / step).rounded()) {
            let now = begin + Double(tick) * step
            let result = engine.advance(to: Self.at(now))
            if result.queries.contains(where: {
                $0.message.questions.contains { $0.name == Self.service && $0.type == .ptr }
            }) {
                times.append(now)
            }
        }
        return times
    }

    /// Audit row 16: the first query asks for a multicast answer (QM), as
    /// Open Screen's querier does; before, it set the QU bit.
    @Test("A new interface gets a QM query after the start delay; then 1 s later, doubling, capped (RFC 6762 §5.2)")
    func continuousQuerying() {
        var engine = Self.makeEngine()
        engine.timing.startDelay = { .milliseconds(70) }
        engine.addInterface(index: 2, name: "eth0", now: Self.at(0))
        #expect(engine.nextDeadline == Self.at(0.07))
        #expect(engine.advance(to: Self.at(0.06)).queries.isEmpty)
        let first = engine.advance(to: Self.at(0.07))
        #expect(first.queries.count == 1)
        #expect(first.queries[0].interfaceIndex == 2)
        #expect(
            first.queries[0].message.questions == [
                DNSQuestion(name: Self.service, type: .ptr, prefersUnicastResponse: false)
            ])
        #expect(!first.queries[0].message.isResponse)
        // 1.07, then intervals 2, 4, 8 (the cap), 8, ...
        let times = Self.queryTimes(&engine, from: 0.25, to: 40, step: 0.01).map { ($0 * 100).rounded() / 100 }
        #expect(times == [1.07, 3.07, 7.07, 15.07, 23.07, 31.07, 39.07])
    }

    @Test("Passive mode caps later; switching to active queries at once and restarts the back-off")
    func scanModes() {
        var engine = Self.makeEngine(mode: .passive)
        engine.addInterface(index: 2, name: "eth0", now: Self.at(0))
        #expect(engine.advance(to: Self.at(0)).queries.count == 1)
        #expect(Self.queryTimes(&engine, from: 0.25, to: 130) == [1, 3, 7, 15, 31, 63, 127])
        let switched = engine.setScanMode(.active, now: Self.at(130))
        #expect(switched.queries.count == 1)
        #expect(Self.queryTimes(&engine, from: 130.25, to: 150) == [131, 133, 137, 145])
        // Switching to passive sends nothing by itself.
        #expect(engine.setScanMode(.passive, now: Self.at(150)).queries.isEmpty)
    }

    @Test("Queries carry the PTRs known with more than half their TTL left (RFC 6762 §7.1)")
    func knownAnswers() {
        var engine = Self.makeEngine()
        engine.addInterface(index: 2, name: "eth0", now: Self.at(0))
        _ = engine.receive(Self.response(ttl: 100), interfaceIndex: 2, sourcePort: 5353, now: Self.at(0.5))
        let query = engine.advance(to: Self.at(1)).queries[0].message
        #expect(query.answers == [DNSResourceRecord(name: Self.service, ttl: 99, data: .ptr(Self.instance))])
        // Past half the TTL (50.5 s) the answer is left out, so responders refresh it.
        var knownAnswerCounts: [Double: Int] = [:]
        for second in stride(from: 1.25, through: 70, by: 0.25) {
            for (message, _) in engine.advance(to: Self.at(second)).queries
            where message.questions.contains(where: { $0.name == Self.service && $0.type == .ptr }) {
                knownAnswerCounts[second] = message.answers.count
            }
        }
        #expect(knownAnswerCounts == [3: 1, 7: 1, 15: 1, 23: 1, 31: 1, 39: 1, 47: 1, 55: 0, 63: 0])
    }

    /// With a thousand devices answering, rebuilding every device and
    /// walking the whole cache for each message heard was most of
    /// discovery's work (Benchmarks/Comparisons/FleetComparison): a message
    /// now rebuilds the devices its new records describe, a repeat of known
    /// records none, and an address for a host no SRV in the message names
    /// all of them.
    @Test("A message rebuilds only the devices its new records describe")
    func incrementalRebuild() {
        var engine = Self.makeEngine()
        engine.addInterface(index: 2, name: "eth0", now: Self.at(0))
        let name = "Chromecast-0123456789abcdef0123456789abcdef"
        let first = engine.receive(Self.response(), interfaceIndex: 2, sourcePort: 5353, now: Self.at(0.5))
        #expect(first.changedDevices == [name])
        #expect(engine.devices[name]?.friendlyName == "TV")
        let repeated = engine.receive(Self.response(), interfaceIndex: 2, sourcePort: 5353, now: Self.at(1))
        #expect(repeated.changedDevices == [], "known records change no device")
        let renamed = engine.receive(
            Self.response(txt: ["id=0123456789abcdef0123456789abcdef", "fn=Den"]), interfaceIndex: 2,
            sourcePort: 5353, now: Self.at(2.5))
        #expect(renamed.changedDevices == [name])
        #expect(engine.devices[name]?.friendlyName == "Den")
        let address = DNSResourceRecord(name: Self.host, ttl: 100, data: .a(IPAddress.V4("10.0.0.8")!))
        let addressOnly = engine.receive(
            Self.response(records: [address]), interfaceIndex: 2, sourcePort: 5353, now: Self.at(3))
        #expect(addressOnly.changedDevices == nil, "an address alone: every device is rebuilt")
        #expect(engine.devices[name]?.addresses.count == 2)
    }

    /// Sixty known devices do not fit one datagram's known answers: the
    /// query goes as three, the question and the first 24 in the first, TC
    /// on all but the last (RFC 6762 §7.2). One datagram of 24 left the
    /// other 36 devices answering every query again.
    @Test("Known answers that do not fit one datagram continue in more, TC set on all but the last")
    func multipacketKnownAnswers() {
        var engine = Self.makeEngine()
        engine.addInterface(index: 2, name: "eth0", now: Self.at(0))
        let pointers = (0..<60).map { number in
            DNSResourceRecord(
                name: Self.service, ttl: 100, data: .ptr(Self.service.prepending("Chromecast-\(number)")))
        }
        _ = engine.receive(Self.response(records: pointers), interfaceIndex: 2, sourcePort: 5353, now: Self.at(0.5))
        var datagrams: [DNSMessage] = []
        for second in stride(from: 1.0, through: 3.0, by: 1.0) where datagrams.isEmpty {
            datagrams = engine.advance(to: Self.at(second)).queries.map(\.message)
                .filter { $0.answers.first?.type == .ptr }
        }
        #expect(datagrams.map(\.answers.count) == [24, 24, 12])
        #expect(datagrams.map(\.isTruncated) == [true, true, false])
        #expect(
            datagrams.map { $0.questions.contains { $0.name == Self.service && $0.type == .ptr } } == [
                true, false, false,
            ])
        #expect(Set(datagrams.flatMap(\.answers).map(\.data)) == Set(pointers.map(\.data)))
    }

    @Test("Records are refreshed at 80, 85, 90 and 95 % of their TTL, then expire")
    func refreshAndExpiry() {
        var engine = Self.makeEngine()
        engine.addInterface(index: 2, name: "eth0", now: Self.at(0))
        _ = engine.receive(Self.response(ttl: 1000), interfaceIndex: 2, sourcePort: 5353, now: Self.at(0))
        #expect(engine.devices.count == 1)
        var refreshTimes: [Double] = []
        var lost: [String: DiscoveryEvent.LossReason] = [:]
        for second in stride(from: 1.0, through: 1001, by: 1) {
            let step = engine.advance(to: Self.at(second))
            let srvRefresh = step.queries.contains {
                $0.message.questions.contains { $0.name == Self.instance && $0.type == .srv }
            }
            if srvRefresh { refreshTimes.append(second) }
            lost.merge(step.lossReasons) { first, _ in first }
        }
        #expect(refreshTimes == [800, 850, 900, 950])
        #expect(lost == ["Chromecast-0123456789abcdef0123456789abcdef": .expired])
        #expect(engine.devices.isEmpty)
    }

    /// A goodbye removes the device one second later, with reason goodbye —
    /// unless, within that second, another responder announces the record
    /// again (RFC 6762 §10.1: a group's new leader rescinding the old one's goodbye).
    @Test(arguments: [false, true])
    func goodbye(rescinded: Bool) {
        var engine = Self.makeEngine()
        engine.addInterface(index: 2, name: "eth0", now: Self.at(0))
        _ = engine.receive(Self.response(), interfaceIndex: 2, sourcePort: 5353, now: Self.at(0))
        let pointer = { (ttl: UInt32) in
            DNSMessage(
                flags: DNSMessage.responseFlags,
                answers: [DNSResourceRecord(name: Self.service, ttl: ttl, data: .ptr(Self.instance))])
        }
        #expect(engine.receive(pointer(0), interfaceIndex: 2, sourcePort: 5353, now: Self.at(5)).lossReasons.isEmpty)
        #expect(engine.devices.count == 1)
        #expect(engine.nextDeadline == Self.at(6))
        if rescinded {
            _ = engine.receive(pointer(100), interfaceIndex: 2, sourcePort: 5353, now: Self.at(5.2))
            #expect(engine.advance(to: Self.at(7)).lossReasons.isEmpty)
            #expect(engine.devices.count == 1)
        } else {
            #expect(
                engine.advance(to: Self.at(6)).lossReasons == ["Chromecast-0123456789abcdef0123456789abcdef": .goodbye])
            #expect(engine.devices.isEmpty)
        }
    }

    @Test("Missing SRV/TXT and host addresses are asked for, with back-off, until they arrive")
    func resolution() {
        var engine = Self.makeEngine()
        engine.addInterface(index: 2, name: "eth0", now: Self.at(0))
        let onlyPTR = Self.response(records: [
            DNSResourceRecord(name: Self.service, ttl: 100, data: .ptr(Self.instance))
        ])
        _ = engine.receive(onlyPTR, interfaceIndex: 2, sourcePort: 5353, now: Self.at(0.2))
        // Asked after a short wait for records that often follow in the next packet.
        let ask = engine.advance(to: Self.at(0.3)).queries.flatMap(\.message.questions)
        #expect(
            Set(ask) == [DNSQuestion(name: Self.instance, type: .srv), DNSQuestion(name: Self.instance, type: .txt)])
        #expect(engine.advance(to: Self.at(0.9)).queries.isEmpty)
        #expect(
            engine.advance(to: Self.at(1.3)).queries.flatMap(\.message.questions).contains(
                DNSQuestion(name: Self.instance, type: .srv)))

        let serviceRecords = Self.response(records: Array(Self.response().answers[1...2]))
        _ = engine.receive(serviceRecords, interfaceIndex: 2, sourcePort: 5353, now: Self.at(1.5))
        let hostQuestions = engine.advance(to: Self.at(1.6)).queries.flatMap(\.message.questions)
        #expect(
            Set(hostQuestions) == [DNSQuestion(name: Self.host, type: .a), DNSQuestion(name: Self.host, type: .aaaa)])
        #expect(engine.devices.isEmpty, "no address yet")

        let address = Self.response(records: [Self.response().answers[3]])
        _ = engine.receive(address, interfaceIndex: 2, sourcePort: 5353, now: Self.at(1.7))
        #expect(engine.devices.values.first?.addresses == [.v4(IPAddress.V4("10.0.0.7")!)])
        #expect(Self.queryTimes(&engine, from: 2, to: 2.9).isEmpty)
    }

    @Test("Queries, other ports, unknown interfaces and error codes are ignored")
    func ignoredMessages() {
        var engine = Self.makeEngine()
        engine.addInterface(index: 2, name: "eth0", now: Self.at(0))
        var query = Self.response()
        query.flags = 0
        _ = engine.receive(query, interfaceIndex: 2, sourcePort: 5353, now: Self.at(0))
        _ = engine.receive(Self.response(), interfaceIndex: 2, sourcePort: 40_000, now: Self.at(0))
        _ = engine.receive(Self.response(), interfaceIndex: 9, sourcePort: 5353, now: Self.at(0))
        var failed = Self.response()
        failed.flags |= 3
        _ = engine.receive(failed, interfaceIndex: 2, sourcePort: 5353, now: Self.at(0))
        #expect(engine.devices.isEmpty)
    }

    @Test("A cache-flush TXT replaces the old one at once; a TXT without id makes no device")
    func cacheFlushAndMissingID() {
        var engine = Self.makeEngine()
        engine.addInterface(index: 2, name: "eth0", now: Self.at(0))
        _ = engine.receive(Self.response(), interfaceIndex: 2, sourcePort: 5353, now: Self.at(0))
        let renamed = Self.response(records: [
            Self.response(txt: ["id=0123456789abcdef0123456789abcdef", "fn=Den"]).answers[2]
        ])
        _ = engine.receive(renamed, interfaceIndex: 2, sourcePort: 5353, now: Self.at(5))
        #expect(engine.devices.values.first?.friendlyName == "Den")
        _ = engine.advance(to: Self.at(6.5))
        #expect(engine.cache.records(named: Self.instance, type: .txt).count == 1, "the old TXT left after a second")

        var other = Self.makeEngine()
        other.addInterface(index: 2, name: "eth0", now: Self.at(0))
        _ = other.receive(Self.response(txt: ["fn=No id"]), interfaceIndex: 2, sourcePort: 5353, now: Self.at(0))
        #expect(other.devices.isEmpty)
    }

    @Test("Removing an interface forgets what was heard there, with reason interfaceDown")
    func interfaceRemoval() {
        var engine = Self.makeEngine()
        engine.addInterface(index: 2, name: "eth0", now: Self.at(0))
        _ = engine.receive(Self.response(), interfaceIndex: 2, sourcePort: 5353, now: Self.at(0))
        let step = engine.removeInterface(index: 2, now: Self.at(1))
        #expect(step.lossReasons == ["Chromecast-0123456789abcdef0123456789abcdef": .interfaceDown])
        #expect(step.queries.isEmpty)
        #expect(engine.interfaces.isEmpty)
    }
}
