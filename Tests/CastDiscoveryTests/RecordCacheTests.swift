import NIOCore
import Testing

@testable import CastDiscovery

@Suite("Record cache")
struct RecordCacheTests {
    static let now = NIODeadline.uptimeNanoseconds(1_000_000_000)

    static func pointer(_ label: String, ttl: UInt32 = 100) -> DNSResourceRecord {
        let service = DNSName("_googlecast._tcp.local")
        return DNSResourceRecord(name: service, ttl: ttl, data: .ptr(service.prepending(label)))
    }

    @Test("A full cache refuses new records but still refreshes the ones it holds")
    func capacity() {
        var cache = RecordCache(capacity: 3, jitter: { 0 })
        for label in ["a", "b", "c"] {
            let added = cache.insert(Self.pointer(label), interfaceIndex: 1, now: Self.now)
            #expect(added)
        }
        let overflow = cache.insert(Self.pointer("d"), interfaceIndex: 1, now: Self.now)
        #expect(!overflow)
        #expect(cache.count == 3)
        let refreshedIsNew = cache.insert(Self.pointer("a", ttl: 500), interfaceIndex: 1, now: Self.now)
        #expect(!refreshedIsNew, "a refresh, not a new record")
        #expect(cache.records(named: DNSName("_googlecast._tcp.local"), type: .ptr).count == 3)
        // Room again once records leave.
        let expired = cache.removeExpired(now: Self.now + .seconds(100))
        #expect(expired.count == 2)
        let addedLater = cache.insert(Self.pointer("d"), interfaceIndex: 1, now: Self.now + .seconds(100))
        #expect(addedLater)
        #expect(cache.count == 2)
    }
}
