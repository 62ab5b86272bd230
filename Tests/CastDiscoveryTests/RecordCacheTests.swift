import NIOCore
import Testing

@_spi(Receiver) @testable import CastDiscovery

@Suite("Record cache", .timeLimit(.minutes(3)))
struct RecordCacheTests {
    static let now = NIODeadline.uptimeNanoseconds(1_000_000_000)

    static func pointer(_ label: String, ttl: UInt32 = 100) -> DNSResourceRecord {
        let service = DNSName("_googlecast._tcp.local")
        return DNSResourceRecord(name: service, ttl: ttl, data: .ptr(service.prepending(label)))
    }

    /// Issue 20: a flood of fake devices cannot fill the cache for good — a
    /// full interface evicts its least recently heard records, so a device
    /// heard again stays — and another interface is not affected.
    @Test("A full interface evicts its least recently heard records; others keep theirs")
    func capacity() {
        var cache = RecordCache(capacity: 8, jitter: { 0 })
        var added = [
            cache.insert(Self.pointer("other"), interfaceIndex: 2, now: Self.now),
            cache.insert(Self.pointer("real"), interfaceIndex: 1, now: Self.now),
        ]
        for index in 0..<7 {
            added.append(cache.insert(Self.pointer("fake\(index)"), interfaceIndex: 1, now: Self.now + .seconds(1)))
        }
        // The real device is heard again, then the flood goes on.
        _ = cache.insert(Self.pointer("real"), interfaceIndex: 1, now: Self.now + .seconds(2))
        for index in 7..<100 {
            let time = Self.now + .seconds(3) + .milliseconds(Int64(index))
            added.append(cache.insert(Self.pointer("fake\(index)"), interfaceIndex: 1, now: time))
        }
        #expect(added.allSatisfy { $0 }, "every new record is taken, evicting old ones")
        let names = cache.records(named: DNSName("_googlecast._tcp.local"), type: .ptr)
        #expect(names.filter { $0.interfaceIndex == 1 }.count <= 8)
        #expect(names.contains { $0.interfaceIndex == 2 })
        #expect(cache.count <= 9)
        let refreshedIsNew = cache.insert(
            Self.pointer("fake99", ttl: 500), interfaceIndex: 1, now: Self.now + .seconds(4))
        #expect(!refreshedIsNew, "a refresh, not a new record")
    }
}
