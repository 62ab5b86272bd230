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
struct RecordCache {
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

    private struct Key: Hashable {
        var interfaceIndex: Int
        var name: DNSName
        var data: DNSRecordData
    }

    private var entries: [Key: Entry] = [:]
    private let jitter: () -> Double
    /// The most records kept; beyond it new records are refused, so a flood cannot exhaust memory.
    let capacity: Int

    /// Creates an empty cache; `jitter` gives a fraction in 0...0.02 added to each refresh point.
    init(capacity: Int = 4096, jitter: @escaping () -> Double = { Double.random(in: 0...0.02) }) {
        self.capacity = capacity
        self.jitter = jitter
    }

    /// Adds or refreshes `record`, heard on `interfaceIndex` at `now`.
    ///
    /// Returns whether the set of records changed (a new record, not a TTL refresh);
    /// `false` also when the cache is full and the record is new.
    @discardableResult
    mutating func insert(_ record: DNSResourceRecord, interfaceIndex: Int, now: NIODeadline) -> Bool {
        let key = Key(interfaceIndex: interfaceIndex, name: record.name, data: record.data)
        if record.ttl == 0 {
            if var entry = self.entries[key] {
                entry.expiresAt = min(entry.expiresAt, now + .seconds(1))
                entry.isGoodbye = true
                entry.refreshPoints = []
                self.entries[key] = entry
            }
            return false
        }
        if record.isCacheFlush {
            for (otherKey, other) in self.entries
            where otherKey.interfaceIndex == interfaceIndex && otherKey.name == record.name
                && other.record.type == record.type && otherKey.data != record.data
                && other.receivedAt < now - .seconds(1)
            {
                self.entries[otherKey]?.expiresAt = min(other.expiresAt, now + .seconds(1))
                self.entries[otherKey]?.refreshPoints = []
            }
        }
        let isNew = self.entries[key] == nil
        guard !isNew || self.entries.count < self.capacity else { return false }
        let base = [0.80, 0.85, 0.90, 0.95]
        self.entries[key] = Entry(
            record: record,
            interfaceIndex: interfaceIndex,
            receivedAt: now,
            expiresAt: now + .seconds(Int64(record.ttl)),
            refreshPoints: base.map { $0 + self.jitter() }
        )
        return isNew
    }

    /// The live records named `name` of `type`, on any interface, newest first.
    func records(named name: DNSName, type: DNSRecordType) -> [Entry] {
        self.entries.values
            .filter { $0.record.name == name && $0.record.type == type }
            .sorted { $0.receivedAt > $1.receivedAt }
    }

    /// Every live record of `type`.
    func records(ofType type: DNSRecordType) -> [Entry] {
        self.entries.values.filter { $0.record.type == type }
    }

    /// Whether the cache holds records named `name` of `type`.
    func contains(name: DNSName, type: DNSRecordType) -> Bool {
        self.entries.values.contains { $0.record.name == name && $0.record.type == type }
    }

    /// Removes the records whose time is up.
    mutating func removeExpired(now: NIODeadline) -> [Removal] {
        let expired = self.entries.filter { $0.value.expiresAt <= now }
        for key in expired.keys { self.entries.removeValue(forKey: key) }
        return expired.values.map { Removal(entry: $0, reason: $0.isGoodbye ? .goodbye : .expired) }
    }

    /// Removes every record heard on `interfaceIndex`.
    mutating func removeAll(onInterface interfaceIndex: Int) -> [Removal] {
        let gone = self.entries.filter { $0.key.interfaceIndex == interfaceIndex }
        for key in gone.keys { self.entries.removeValue(forKey: key) }
        return gone.values.map { Removal(entry: $0, reason: .interfaceDown) }
    }

    /// The records that reached a refresh point by `now`; each point is reported once.
    mutating func takeDueRefreshes(now: NIODeadline) -> [Entry] {
        var due: [Entry] = []
        for (key, entry) in self.entries {
            guard let point = entry.refreshPoints.first, self.refreshTime(of: entry, at: point) <= now else { continue }
            var updated = entry
            updated.refreshPoints.removeAll { self.refreshTime(of: entry, at: $0) <= now }
            self.entries[key] = updated
            due.append(entry)
        }
        return due
    }

    /// The earliest moment an expiry or a refresh is due, if any.
    var nextDeadline: NIODeadline? {
        self.entries.values.flatMap { entry in
            [entry.expiresAt] + entry.refreshPoints.prefix(1).map { self.refreshTime(of: entry, at: $0) }
        }.min()
    }

    /// Whether more than half of `entry`'s TTL is left, the known-answer rule (RFC 6762 §7.1).
    func hasMoreThanHalfItsTTLLeft(_ entry: Entry, now: NIODeadline) -> Bool {
        (entry.expiresAt - now).nanoseconds * 2 > TimeAmount.seconds(Int64(entry.record.ttl)).nanoseconds
    }

    private func refreshTime(of entry: Entry, at fraction: Double) -> NIODeadline {
        entry.receivedAt + .nanoseconds(Int64(Double(entry.record.ttl) * fraction * 1e9))
    }
}
