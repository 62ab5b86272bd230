import NIOCore

/// The records a querier has heard, per interface, with their lifetimes
/// (RFC 6762 §5.2, §10).
///
/// - A record lives for its TTL from the moment it arrived.
/// - A goodbye (TTL 0) leaves the record one more second, then removes it (§10.1).
/// - A cache-flush record gives the other records of its name and type that
///   arrived more than a second earlier one more second (§10.2).
/// - Each record asks for a refresh query at 80, 85, 90 and 95 % of its TTL,
///   plus up to 2 % of jitter so queriers on a network do not ask together (§5.2).
package struct RecordCache {
    /// One record heard on one interface.
    struct Entry {
        var record: DNSResourceRecord
        var interfaceIndex: Int
        var receivedAt: NIODeadline
        var expiresAt: NIODeadline
        /// Whether the record is going away because of a goodbye.
        var isGoodbye = false
        /// The refresh points (as fractions of the TTL) not yet reached.
        var refreshPoints: [Double]
    }

    /// A record that left the cache, and why.
    struct Removal {
        var entry: Entry
        var reason: DiscoveryEvent.LossReason
    }

    /// The records of one name and type: what a question asks for, and what cache-flush replaces.
    private struct Group: Hashable {
        var name: DNSName
        var type: DNSRecordType
    }

    /// One record within its group.
    private struct Member: Hashable {
        var interfaceIndex: Int
        var data: DNSRecordData
    }

    /// The records, grouped so that a lookup by name and type costs the group's size, not the cache's.
    private var groups: [Group: [Member: Entry]] = [:]
    /// How many records the groups hold.
    private(set) var count = 0
    /// How many records each interface's groups hold.
    private var counts: [Int: Int] = [:]
    private let jitter: () -> Double
    /// No expiry or refresh is due before this (a lower bound, exact after
    /// each scan): a message heard between two due times costs no walk
    /// over every record, which with a thousand devices answering was most
    /// of the work of each message.
    private var earliestDue: NIODeadline?
    /// The most records kept per interface. A new record beyond it evicts the
    /// least recently heard eighth of that interface's records, so a flood of
    /// fake devices cannot exhaust memory, and cannot lock real devices out
    /// either: they are heard again and stay, the flood's old records go.
    ///
    /// A device answers with about ten records (PTR, SRV, TXT, A, AAAA and
    /// NSECs), so the default, 32 768, holds some 3 000 devices — a hotel's
    /// or a school's network — in a few megabytes. It was 4 096: a network
    /// of 1 000 devices (Benchmarks/Comparisons/FleetComparison) left 410
    /// found and the rest evicted in turn.
    let capacity: Int

    /// Creates an empty cache; `jitter` gives a fraction in 0...0.02 added to each refresh point.
    package init(capacity: Int = 32_768, jitter: @escaping () -> Double = { Double.random(in: 0...0.02) }) {
        self.capacity = capacity
        self.jitter = jitter
    }

    /// Adds or refreshes `record`, heard on `interfaceIndex` at `now`.
    ///
    /// Returns whether the set of records changed (a new record, not a TTL refresh).
    @discardableResult
    mutating func insert(_ record: DNSResourceRecord, interfaceIndex: Int, now: NIODeadline) -> Bool {
        let group = Group(name: record.name, type: record.type)
        let member = Member(interfaceIndex: interfaceIndex, data: record.data)
        if record.ttl == 0 {
            if var entry = self.groups[group]?[member] {
                entry.expiresAt = min(entry.expiresAt, now + .seconds(1))
                entry.isGoodbye = true
                entry.refreshPoints = []
                self.groups[group]?[member] = entry
                self.lowerEarliestDue(to: entry.expiresAt)
            }
            return false
        }
        if record.isCacheFlush, let members = self.groups[group] {
            for (other, entry) in members
            where other.interfaceIndex == interfaceIndex && other.data != record.data
                && entry.receivedAt < now - .seconds(1)
            {
                self.groups[group]?[other]?.expiresAt = min(entry.expiresAt, now + .seconds(1))
                self.groups[group]?[other]?.refreshPoints = []
                self.lowerEarliestDue(to: min(entry.expiresAt, now + .seconds(1)))
            }
        }
        let isNew = self.groups[group]?[member] == nil
        if isNew, self.counts[interfaceIndex, default: 0] >= self.capacity {
            self.evictLeastRecentlyHeard(onInterface: interfaceIndex)
        }
        let base = [0.80, 0.85, 0.90, 0.95]
        let entry = Entry(
            record: record,
            interfaceIndex: interfaceIndex,
            receivedAt: now,
            expiresAt: now + .seconds(Int64(record.ttl)),
            refreshPoints: base.map { $0 + self.jitter() }
        )
        self.groups[group, default: [:]][member] = entry
        self.lowerEarliestDue(to: self.due(entry))
        if isNew {
            self.count += 1
            self.counts[interfaceIndex, default: 0] += 1
        }
        return isNew
    }

    /// How many times the cache has evicted to make room: records went that did not expire.
    private(set) var evictions = 0

    /// Drops the least recently heard eighth of `interfaceIndex`'s records (at least one).
    private mutating func evictLeastRecentlyHeard(onInterface interfaceIndex: Int) {
        self.evictions += 1
        let heard = self.groups.values.flatMap(\.values).filter { $0.interfaceIndex == interfaceIndex }
            .map(\.receivedAt).sorted()
        guard !heard.isEmpty else { return }
        let cutoff = heard[max(heard.count / 8, 1) - 1]
        _ = self.removeAll { $0.interfaceIndex == interfaceIndex && $0.receivedAt <= cutoff }
    }

    /// The live records named `name` of `type`, on any interface, newest first.
    func records(named name: DNSName, type: DNSRecordType) -> [Entry] {
        (self.groups[Group(name: name, type: type)]?.values).map { $0.sorted { $0.receivedAt > $1.receivedAt } } ?? []
    }

    /// Every live record of `type`.
    func records(ofType type: DNSRecordType) -> [Entry] {
        self.groups.filter { $0.key.type == type }.values.flatMap(\.values)
    }

    /// Whether the cache holds the record `name` → `data` heard on `interfaceIndex`.
    func contains(name: DNSName, data: DNSRecordData, interfaceIndex: Int) -> Bool {
        let group = Group(name: name, type: data.type)
        return self.groups[group]?[Member(interfaceIndex: interfaceIndex, data: data)] != nil
    }

    /// Whether the cache holds records named `name` of `type`.
    func contains(name: DNSName, type: DNSRecordType) -> Bool {
        self.groups[Group(name: name, type: type)] != nil
    }

    /// Removes the records whose time is up.
    mutating func removeExpired(now: NIODeadline) -> [Removal] {
        guard let earliest = self.earliestDue, earliest <= now else { return [] }
        let removed = self.removeAll { $0.expiresAt <= now }
        return removed.map { Removal(entry: $0, reason: $0.isGoodbye ? .goodbye : .expired) }
    }

    /// Removes every record heard on `interfaceIndex`.
    mutating func removeAll(onInterface interfaceIndex: Int) -> [Removal] {
        self.removeAll { $0.interfaceIndex == interfaceIndex }.map { Removal(entry: $0, reason: .interfaceDown) }
    }

    /// Removes the entries `predicate` picks, dropping groups left empty, and returns them.
    private mutating func removeAll(where predicate: (Entry) -> Bool) -> [Entry] {
        defer { self.earliestDue = self.exactEarliestDue() }
        var removed: [Entry] = []
        for (group, members) in self.groups where members.values.contains(where: predicate) {
            let gone = members.filter { predicate($0.value) }
            guard !gone.isEmpty else { continue }
            removed += gone.values
            let kept = members.filter { !predicate($0.value) }
            self.groups[group] = kept.isEmpty ? nil : kept
        }
        self.count -= removed.count
        for entry in removed { self.counts[entry.interfaceIndex, default: 0] -= 1 }
        return removed
    }

    /// The records that reached a refresh point by `now`; each point is reported once.
    mutating func takeDueRefreshes(now: NIODeadline) -> [Entry] {
        guard let earliest = self.earliestDue, earliest <= now else { return [] }
        defer { self.earliestDue = self.exactEarliestDue() }
        var due: [Entry] = []
        for (group, members) in self.groups {
            for (member, entry) in members {
                guard let point = entry.refreshPoints.first, self.refreshTime(of: entry, at: point) <= now else {
                    continue
                }
                let remaining = entry.refreshPoints.filter { self.refreshTime(of: entry, at: $0) > now }
                self.groups[group]?[member]?.refreshPoints = remaining
                due.append(entry)
            }
        }
        return due
    }

    /// The earliest moment an expiry or a refresh may be due, if any (never later than the real one).
    var nextDeadline: NIODeadline? { self.earliestDue }

    /// When `entry` next needs the cache's attention: its first refresh point, or its expiry.
    private func due(_ entry: Entry) -> NIODeadline {
        min(entry.expiresAt, entry.refreshPoints.first.map { self.refreshTime(of: entry, at: $0) } ?? entry.expiresAt)
    }

    private mutating func lowerEarliestDue(to deadline: NIODeadline) {
        self.earliestDue = min(self.earliestDue ?? deadline, deadline)
    }

    /// The earliest due time over every record: a walk over the cache, done after each scan.
    private func exactEarliestDue() -> NIODeadline? {
        self.groups.values.lazy.flatMap(\.values).map { self.due($0) }.min()
    }

    /// Whether more than half of `entry`'s TTL is left, the known-answer rule (RFC 6762 §7.1).
    func hasMoreThanHalfItsTTLLeft(_ entry: Entry, now: NIODeadline) -> Bool {
        (entry.expiresAt - now).nanoseconds * 2 > TimeAmount.seconds(Int64(entry.record.ttl)).nanoseconds
    }

    private func refreshTime(of entry: Entry, at fraction: Double) -> NIODeadline {
        entry.receivedAt + .nanoseconds(Int64(Double(entry.record.ttl) * fraction * 1e9))
    }
}
