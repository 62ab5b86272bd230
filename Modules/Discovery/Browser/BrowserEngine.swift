package import NIOCore

/// The querier's logic for one service type, without sockets or clocks.
///
/// Inputs are interface changes, received messages and the passing of time
/// (`now` is passed in); outputs are the queries to send on each interface
/// and the devices the cache now describes. The I/O around it lives in
/// ``DiscoveryManager``; tests drive it with a fake clock.
///
/// What it does, per RFC 6762/6763:
/// - continuous PTR queries for the service: 20-120 ms after start, 1 s
///   later, then doubling up to the scan mode's cap (§5.2), every one asking
///   for multicast answers (QM, never QU §5.4: with avahi-daemon on the same
///   port a unicast answer may reach its socket instead of ours);
/// - known answers in each query: cached PTRs with more than half their TTL
///   left (§7.1), in as many datagrams as they need, the truncated (TC)
///   bit set on all but the last (§7.2), so that on a network of a thousand
///   devices the ones already known stay silent;
/// - refresh queries at 80/85/90/95 % of each record's TTL (§5.2);
/// - resolution of each instance's SRV and TXT and its host's A/AAAA when the
///   cache lacks them, retried with back-off, and again when records change.
package struct BrowserEngine {
    /// What one step produced.
    package struct Step {
        /// Queries to send, each on one interface.
        var queries: [(message: DNSMessage, interfaceIndex: Int)] = []
        /// Why instances whose devices may have gone were removed, by instance name.
        var lossReasons: [String: DiscoveryEvent.LossReason] = [:]
        /// Records dropped as they arrived, and why: to be logged.
        var refusals: [String] = []
        /// The instances whose devices may have changed; `nil`: any of them.
        /// Empty when the step changed no device, so nothing need be published.
        var changedDevices: Set<String>? = []
    }

    /// The timing the scan modes use.
    package struct Timing {
        var initialQueryInterval: TimeAmount = .seconds(1)
        /// The wait before an interface's first query, 20-120 ms at random, so hosts joining a network
        /// together do not query together (RFC 6762 §5.2).
        var startDelay: () -> TimeAmount = { .milliseconds(Int64.random(in: 20...120)) }
        var activeMaximumQueryInterval: TimeAmount
        var passiveMaximumQueryInterval: TimeAmount
        /// How long to wait for records that often follow in the next packet before asking for them.
        var resolveDelay: TimeAmount = .milliseconds(100)
        var maximumResolveInterval: TimeAmount = .seconds(60)
    }

    /// The service browsed: `_googlecast._tcp.local`.
    let serviceType: DNSName
    var timing: Timing
    private(set) var cache: RecordCache
    private(set) var scanMode: ScanMode
    /// Interface names by index, the interfaces queries go out on.
    private(set) var interfaces: [Int: String] = [:]
    /// The devices the cache describes, by instance name.
    private(set) var devices: [String: CastDevice] = [:]

    private var nextQueryAt: NIODeadline?
    /// Interfaces whose first query is still to go, and when it goes.
    private var firstQueryAt: [Int: NIODeadline] = [:]
    private var queryInterval: TimeAmount
    private var resolveSchedule: [DNSQuestion: (next: NIODeadline, interval: TimeAmount)] = [:]

    /// The known answers one datagram carries at most, so that it stays within an Ethernet MTU.
    private static let maximumKnownAnswers = 24
    /// What device addresses may be on each interface, by index.
    private var scopes: [Int: AddressScope] = [:]

    package init(serviceType: DNSName, scanMode: ScanMode, timing: Timing, cache: RecordCache = RecordCache()) {
        self.serviceType = serviceType
        self.scanMode = scanMode
        self.timing = timing
        self.cache = cache
        self.queryInterval = timing.initialQueryInterval
    }

    /// The next moment ``advance(to:)`` has work, if any.
    var nextDeadline: NIODeadline? {
        let pending = self.resolveSchedule.values.map(\.next) + self.firstQueryAt.values
        return ([self.nextQueryAt, self.cache.nextDeadline].compactMap { $0 } + pending).min()
    }

    // MARK: Inputs

    /// Starts querying on a new interface: a first query after the start delay, and the back-off
    /// restarted from it (§5.2, §10.3).
    package mutating func addInterface(index: Int, name: String, scope: AddressScope = .unknown, now: NIODeadline) {
        self.interfaces[index] = name
        self.scopes[index] = scope
        let firstAt = now + self.timing.startDelay()
        self.firstQueryAt[index] = firstAt
        self.queryInterval = self.timing.initialQueryInterval
        self.nextQueryAt = firstAt + self.queryInterval
    }

    /// Stops using an interface and forgets what was heard on it.
    mutating func removeInterface(index: Int, now: NIODeadline) -> Step {
        self.interfaces.removeValue(forKey: index)
        self.scopes.removeValue(forKey: index)
        self.firstQueryAt.removeValue(forKey: index)
        let lossReasons = self.rebuildDevices(after: self.cache.removeAll(onInterface: index))
        var step = self.advance(to: now)
        step.lossReasons.merge(lossReasons) { first, _ in first }
        step.changedDevices = nil
        return step
    }

    /// Switches scan mode; switching to active queries at once and restarts the back-off.
    mutating func setScanMode(_ mode: ScanMode, now: NIODeadline) -> Step {
        let wasActive = self.scanMode == .active
        self.scanMode = mode
        guard mode == .active, !wasActive else { return Step() }
        self.queryInterval = self.timing.initialQueryInterval
        self.nextQueryAt = now + self.queryInterval
        var step = Step()
        step.queries = self.interfaces.keys.sorted().flatMap { index in
            self.query(questions: [self.serviceQuestion()], on: index, now: now).map { ($0, index) }
        }
        return step
    }

    /// Takes in a received message; only responses from port 5353 count (§6, §11).
    package mutating func receive(_ message: DNSMessage, interfaceIndex: Int, sourcePort: Int, now: NIODeadline) -> Step
    {
        guard message.isResponse, message.opcode == 0, message.responseCode == 0,
            sourcePort == 5353, self.interfaces[interfaceIndex] != nil
        else { return Step() }
        var refusals: [String] = []
        var records: [DNSResourceRecord] = []
        for record in message.cacheableRecords {
            if let reason = self.refusal(of: record, on: interfaceIndex) {
                refusals.append("\(record.name) \(record.type): \(reason)")
            } else {
                records.append(record)
            }
        }
        let evictions = self.cache.evictions
        let touched = self.insert(records, interfaceIndex: interfaceIndex, now: now)
        // Advancing rebuilds the devices the new records describe (all of
        // them if the cache had to evict to make room).
        var step = self.advance(to: now, touched: self.cache.evictions == evictions ? touched : nil)
        step.refusals = refusals
        return step
    }

    /// Caches a message's records and returns the instances whose records
    /// changed, or `nil` when that is not known from the message alone (an
    /// address for a host no SRV in it names).
    private mutating func insert(_ records: [DNSResourceRecord], interfaceIndex: Int, now: NIODeadline)
        -> Set<DNSName>?
    {
        var touched = Set<DNSName>()
        var instancesByHost: [DNSName: [DNSName]] = [:]
        // Service records first, so the host records they point at are recognised below.
        for record in records where self.isServiceRecord(record) {
            if case .srv(_, _, _, let target) = record.data { instancesByHost[target, default: []].append(record.name) }
            guard self.cache.insert(record, interfaceIndex: interfaceIndex, now: now) else { continue }
            if case .ptr(let instance) = record.data { touched.insert(instance) } else { touched.insert(record.name) }
        }
        var everyHost: Set<DNSName>?  // every SRV target cached: a walk, done only when needed
        var complete = true
        for record in records where record.type == .a || record.type == .aaaa {
            let instances = instancesByHost[record.name]
            if instances == nil {
                everyHost = everyHost ?? self.hostNames
                guard everyHost!.contains(record.name) else { continue }
            }
            guard self.cache.insert(record, interfaceIndex: interfaceIndex, now: now) else { continue }
            if let instances { touched.formUnion(instances) } else { complete = false }
        }
        return complete ? touched : nil
    }

    /// Why a record heard on `interfaceIndex` must not be used: a service on
    /// port 0, or an address a device cannot have there (``AddressScope``).
    private func refusal(of record: DNSResourceRecord, on interfaceIndex: Int) -> String? {
        let scope = self.scopes[interfaceIndex] ?? .unknown
        switch record.data {
        case .srv(_, _, let port, _) where port == 0: return "port 0"
        case .a(let address): return scope.refusal(of: .v4(address))
        case .aaaa(let address): return scope.refusal(of: .v6(address))
        default: return nil
        }
    }

    /// Does what is due at `now`: expiries, refreshes, the continuous query, resolution.
    package mutating func advance(to now: NIODeadline) -> Step {
        self.advance(to: now, touched: [])
    }

    /// ``advance(to:)`` after records of `touched` instances changed (`nil`: any).
    private mutating func advance(to now: NIODeadline, touched: Set<DNSName>?) -> Step {
        var step = Step()
        let removals = self.cache.removeExpired(now: now)
        if let touched, removals.isEmpty {
            step.changedDevices = self.rebuildDevices(touched)
        } else {
            step.lossReasons = self.rebuildDevices(after: removals)
            step.changedDevices = nil
        }

        var questions: [Int: [DNSQuestion]] = [:]
        for (index, firstAt) in self.firstQueryAt where firstAt <= now {
            // QM, not QU: with avahi also on :5353 a unicast answer may reach
            // its socket instead of ours; Open Screen asks every question as
            // multicast (discovery/mdns/impl/mdns_querier.cc:449).
            questions[index, default: []].append(self.serviceQuestion())
            self.firstQueryAt.removeValue(forKey: index)
        }
        if let nextQueryAt = self.nextQueryAt, nextQueryAt <= now {
            for index in self.interfaces.keys {
                questions[index, default: []].append(self.serviceQuestion())
            }
            let cap =
                self.scanMode == .active
                ? self.timing.activeMaximumQueryInterval : self.timing.passiveMaximumQueryInterval
            self.queryInterval = min(self.queryInterval * 2, cap)
            self.nextQueryAt = now + self.queryInterval
        }
        for entry in self.cache.takeDueRefreshes(now: now) where self.interfaces[entry.interfaceIndex] != nil {
            questions[entry.interfaceIndex, default: []].append(
                DNSQuestion(name: entry.record.name, type: entry.record.type))
        }
        for question in self.dueResolutions(now: now) {
            for index in self.interfaces.keys { questions[index, default: []].append(question) }
        }
        for (index, list) in questions.sorted(by: { $0.key < $1.key }) {
            var unique: [DNSQuestion] = []
            for question in list where !unique.contains(question) { unique.append(question) }
            step.queries += self.query(questions: unique, on: index, now: now).map { ($0, index) }
        }
        return step
    }

    // MARK: Queries

    private func serviceQuestion() -> DNSQuestion {
        DNSQuestion(name: self.serviceType, type: .ptr, prefersUnicastResponse: false)
    }

    /// A query for `questions`, carrying the PTRs this interface knows with
    /// more than half their TTL left: one datagram, or — when they do not
    /// fit — the questions with the first of them, then the rest, the TC
    /// bit on every datagram but the last (RFC 6762 §7.2).
    private func query(questions: [DNSQuestion], on index: Int, now: NIODeadline) -> [DNSMessage] {
        var knownAnswers: [DNSResourceRecord] = []
        if questions.contains(where: { $0.name == self.serviceType && $0.type == .ptr }) {
            knownAnswers = self.cache.records(named: self.serviceType, type: .ptr)
                .filter { $0.interfaceIndex == index && self.cache.hasMoreThanHalfItsTTLLeft($0, now: now) }
                .map { $0.record.withTTL(UInt32(max(0, ($0.expiresAt - now).nanoseconds / 1_000_000_000))) }
        }
        let chunks = stride(from: 0, to: max(knownAnswers.count, 1), by: Self.maximumKnownAnswers).map {
            Array(knownAnswers[$0..<min($0 + Self.maximumKnownAnswers, knownAnswers.count)])
        }
        return chunks.enumerated().map { number, answers in
            DNSMessage(
                flags: number < chunks.count - 1 ? DNSMessage.truncatedFlag : 0,
                questions: number == 0 ? questions : [], answers: answers)
        }
    }

    /// The resolution questions due now; the schedule follows what the cache lacks.
    private mutating func dueResolutions(now: NIODeadline) -> [DNSQuestion] {
        let missing = Set(self.missingQuestions)
        self.resolveSchedule = self.resolveSchedule.filter { missing.contains($0.key) }
        for question in missing where self.resolveSchedule[question] == nil {
            self.resolveSchedule[question] = (now + self.timing.resolveDelay, self.timing.initialQueryInterval)
        }
        var due: [DNSQuestion] = []
        for (question, schedule) in self.resolveSchedule where schedule.next <= now {
            due.append(question)
            self.resolveSchedule[question] = (
                now + schedule.interval, min(schedule.interval * 2, self.timing.maximumResolveInterval)
            )
        }
        return due.sorted { "\($0.name)\($0.type)" < "\($1.name)\($1.type)" }
    }

    /// What the cache lacks to describe every instance: SRV, TXT, and an address for the SRV target.
    var missingQuestions: [DNSQuestion] {
        var questions: [DNSQuestion] = []
        for instance in self.instanceNames {
            for type in [DNSRecordType.srv, .txt] where !self.cache.contains(name: instance, type: type) {
                questions.append(DNSQuestion(name: instance, type: type))
            }
        }
        for host in self.hostNames
        where !self.cache.contains(name: host, type: .a) && !self.cache.contains(name: host, type: .aaaa) {
            questions.append(DNSQuestion(name: host, type: .a))
            questions.append(DNSQuestion(name: host, type: .aaaa))
        }
        return questions
    }

    // MARK: Records → devices

    /// Whether `record` is the service's PTR or an instance's SRV or TXT.
    private func isServiceRecord(_ record: DNSResourceRecord) -> Bool {
        switch record.data {
        case .ptr(let instance):
            return record.name == self.serviceType && self.isInstanceName(instance)
        case .srv, .txt:
            return self.isInstanceName(record.name)
        default:
            return false
        }
    }

    /// `<instance>._googlecast._tcp.local`: one label in front of the service type.
    private func isInstanceName(_ name: DNSName) -> Bool {
        name.labels.count == self.serviceType.labels.count + 1 && name.parent == self.serviceType
    }

    private var instanceNames: Set<DNSName> {
        Set(
            self.cache.records(named: self.serviceType, type: .ptr).compactMap { entry in
                if case .ptr(let instance) = entry.record.data { instance } else { nil }
            }
        )
    }

    private var hostNames: Set<DNSName> {
        Set(
            self.cache.records(ofType: .srv).compactMap { entry in
                if case .srv(_, _, _, let target) = entry.record.data { target } else { nil }
            }
        )
    }

    /// Rebuilds the devices of `instances` alone (records were added, none
    /// removed) and returns their names.
    private mutating func rebuildDevices(_ instances: Set<DNSName>) -> Set<String> {
        var changed = Set<String>()
        for instance in instances where self.isListed(instance) {
            guard let device = self.device(instance: instance) else { continue }
            self.devices[device.instanceName] = device
            changed.insert(device.instanceName)
        }
        return changed
    }

    /// Whether a PTR of the service names `instance` on some interface.
    private func isListed(_ instance: DNSName) -> Bool {
        self.interfaces.keys.contains { index in
            self.cache.contains(name: self.serviceType, data: .ptr(instance), interfaceIndex: index)
        }
    }

    /// Rebuilds ``devices`` and says why the vanished ones went, judged by `removals`.
    private mutating func rebuildDevices(after removals: [RecordCache.Removal]) -> [String: DiscoveryEvent.LossReason] {
        var devices: [String: CastDevice] = [:]
        for instance in self.instanceNames {
            if let device = self.device(instance: instance) { devices[device.instanceName] = device }
        }
        let reasons = Set(removals.map(\.reason))
        let reason: DiscoveryEvent.LossReason =
            reasons.contains(.goodbye) ? .goodbye : reasons.contains(.interfaceDown) ? .interfaceDown : .expired
        var lossReasons: [String: DiscoveryEvent.LossReason] = [:]
        for name in self.devices.keys where devices[name] == nil {
            lossReasons[name] = reason
        }
        self.devices = devices
        return lossReasons
    }

    /// The device `instance` describes, if its SRV, TXT (with an id) and an address are cached.
    ///
    /// The newest SRV whose host has an address wins: while a moved service's
    /// new host is being resolved, the replaced SRV (kept a second by the
    /// cache-flush rule) still describes the device.
    private func device(instance: DNSName) -> CastDevice? {
        guard let txtEntry = self.cache.records(named: instance, type: .txt).first,
            case .txt(let strings) = txtEntry.record.data
        else { return nil }
        for entry in self.cache.records(named: instance, type: .srv) {
            guard case .srv(_, _, let port, let target) = entry.record.data else { continue }
            let addresses = self.addresses(of: target)
            guard !addresses.isEmpty else { continue }
            return CastDevice(
                instanceName: instance.labels[0],
                hostName: target.labels.joined(separator: "."),
                port: Int(port),
                txtStrings: strings,
                addresses: addresses
            )
        }
        return nil
    }

    /// Every cached address of `host`, link-local IPv6 ones zoned to their interface, in ``addressOrder(_:_:)``.
    private func addresses(of target: DNSName) -> [IPAddress] {
        var addresses: [IPAddress] = []
        for entry in self.cache.records(named: target, type: .a) {
            if case .a(let address) = entry.record.data { addresses.append(.v4(address)) }
        }
        for entry in self.cache.records(named: target, type: .aaaa) {
            if case .aaaa(let address) = entry.record.data {
                addresses.append(
                    .v6(address.isLinkLocal ? address.inZone(self.interfaces[entry.interfaceIndex]) : address))
            }
        }
        var unique: [IPAddress] = []
        for address in addresses.sorted(by: Self.addressOrder) where !unique.contains(address) {
            unique.append(address)
        }
        return unique
    }

    /// IPv4 before IPv6, global IPv6 before link-local, then by bytes.
    private static func addressOrder(_ lhs: IPAddress, _ rhs: IPAddress) -> Bool {
        func rank(_ address: IPAddress) -> (Int, [UInt8]) {
            switch address {
            case .v4(let v4): (0, v4.bytes)
            case .v6(let v6): (v6.isLinkLocal ? 2 : 1, v6.bytes)
            }
        }
        let (left, right) = (rank(lhs), rank(rhs))
        return left.0 != right.0 ? left.0 < right.0 : left.1.lexicographicallyPrecedes(right.1)
    }
}

extension BrowserEngine.Timing {
    /// The timing with the given query intervals and first-query delay, the rest defaults
    /// (in an extension, so that the memberwise initializer stays).
    package init(
        startDelay: @escaping () -> TimeAmount, activeMaximumQueryInterval: TimeAmount,
        passiveMaximumQueryInterval: TimeAmount
    ) {
        self.startDelay = startDelay
        self.activeMaximumQueryInterval = activeMaximumQueryInterval
        self.passiveMaximumQueryInterval = passiveMaximumQueryInterval
    }
}
