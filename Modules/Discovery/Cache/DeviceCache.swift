public import Foundation
import NIOConcurrencyHelpers

/// The devices discovery has seen, remembered on disk with when each was
/// last seen, so a later process reaches a known device without waiting for
/// mDNS (pychromecast's known hosts, go-chromecast's device cache).
///
/// A ``DiscoveryManager`` given a cache (``DiscoveryConfiguration/deviceCache``)
/// records every device it finds and, when it starts, asks each cached
/// address for its device by unicast DNS-SD. A cached entry is never listed
/// as it is: only the device's own answer at that address is, so a stale
/// entry — a device that moved, or another one now at its address — never
/// wins over a fresh answer.
///
/// The file is JSON, written whole and atomically; at most ``capacity``
/// entries are kept, the least recently seen leave first. A missing,
/// oversized or unreadable file reads as an empty cache. Processes sharing
/// the file merge by last-seen time: each write re-reads it first.
public final class DeviceCache: Sendable {
    /// One remembered device.
    public struct Entry: Codable, Sendable, Hashable {
        /// The receiver's id (the TXT `id`).
        public var id: String
        /// Its friendly name when last seen.
        public var friendlyName: String
        /// Its model name when last seen.
        public var modelName: String
        /// Its addresses when last seen, as text, IPv4 first.
        public var addresses: [String]
        /// Its Cast port when last seen.
        public var port: Int
        /// When it was last seen.
        public var lastSeen: Date

        /// Creates an entry.
        public init(id: String, friendlyName: String, modelName: String, addresses: [String], port: Int, lastSeen: Date)
        {
            self.id = id
            self.friendlyName = friendlyName
            self.modelName = modelName
            self.addresses = addresses
            self.port = port
            self.lastSeen = lastSeen
        }
    }

    /// The file the cache lives in.
    public let fileURL: URL
    /// The most entries kept.
    public let capacity: Int
    /// The largest file read; a larger one is not a cache this type wrote.
    static let maximumFileSize = 1 << 20
    /// Serialises this process's read-modify-write cycles.
    private let lock = NIOLock()

    /// A cache in `fileURL` (created, with its folder, by the first write) keeping at most `capacity` devices.
    public init(fileURL: URL, capacity: Int = 64) {
        self.fileURL = fileURL
        self.capacity = max(1, capacity)
    }

    /// Every entry, the most recently seen first.
    public var entries: [Entry] {
        self.lock.withLock { self.read() }
    }

    /// The most recently seen entry whose id or friendly name is `name` (without regard to case).
    public func entry(named name: String) -> Entry? {
        self.entries.first {
            $0.id.caseInsensitiveCompare(name) == .orderedSame
                || $0.friendlyName.caseInsensitiveCompare(name) == .orderedSame
        }
    }

    /// Remembers `devices` as seen at `date`. Devices known by address alone
    /// (no DNS-SD id) are not remembered; an entry seen later than `date` is kept as it is.
    public func record(_ devices: [CastDevice], at date: Date = Date()) throws {
        let fresh = devices.filter { !$0.instanceName.isEmpty }.map {
            Entry(
                id: $0.id, friendlyName: $0.friendlyName, modelName: $0.modelName,
                addresses: $0.addresses.map(\.description), port: $0.port, lastSeen: date)
        }
        guard !fresh.isEmpty else { return }
        try self.lock.withLock {
            var byID = Dictionary(self.read().map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            for entry in fresh where (byID[entry.id]?.lastSeen ?? .distantPast) <= entry.lastSeen {
                byID[entry.id] = entry
            }
            try self.write(Array(byID.values))
        }
    }

    /// Forgets the device `id`.
    public func remove(id: String) throws {
        try self.lock.withLock {
            try self.write(self.read().filter { $0.id != id })
        }
    }

    /// The file's entries, newest first, at most `capacity`; empty when there is no usable file.
    private func read() -> [Entry] {
        guard let handle = try? FileHandle(forReadingFrom: self.fileURL) else { return [] }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: Self.maximumFileSize + 1), data.count <= Self.maximumFileSize
        else { return [] }
        return Self.decode(data).map { self.bounded($0) } ?? []
    }

    private func write(_ entries: [Entry]) throws {
        try FileManager.default.createDirectory(
            at: self.fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self.bounded(entries)).write(to: self.fileURL, options: .atomic)
    }

    /// The entries in `data`, or `nil` when it is not a cache file.
    package static func decode(_ data: Data) -> [Entry]? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode([Entry].self, from: data)
    }

    private func bounded(_ entries: [Entry]) -> [Entry] {
        Array(Self.newestFirst(entries).prefix(self.capacity))
    }

    private static func newestFirst(_ entries: [Entry]) -> [Entry] {
        entries.sorted { $0.lastSeen != $1.lastSeen ? $0.lastSeen > $1.lastSeen : $0.id < $1.id }
    }
}
