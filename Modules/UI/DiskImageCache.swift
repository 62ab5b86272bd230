import CastCommon
public import CastKit
public import Foundation
import NIOPosix

/// The default `ImageCache`: images fetched over HTTP(S) into a folder
/// (`$XDG_CACHE_HOME/<process name>/cast-images` by default), bounded in
/// total size, the least recently used removed first.
public final class DiskImageCache: ImageCache {
    /// The folder the images are kept in.
    public let directory: URL
    /// The most the folder holds, bytes.
    public let maximumBytes: Int
    /// The largest image taken, bytes.
    public let maximumImageBytes: Int
    /// How long a fetch may take.
    public let timeout: Duration

    /// Creates a cache.
    public init(
        directory: URL = XDGDirectory.cache.file("cast-images"), maximumBytes: Int = 50 << 20,
        maximumImageBytes: Int = 10 << 20, timeout: Duration = .seconds(10)
    ) {
        self.directory = directory
        self.maximumBytes = maximumBytes
        self.maximumImageBytes = maximumImageBytes
        self.timeout = timeout
    }

    /// The cached copy of `url`, or a fresh one fetched with a GET.
    public func localFile(for url: URL) async throws(ImageCacheError) -> URL {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw ImageCacheError(.unsupportedURL, "\(url) is not an http(s) URL")
        }
        let file = self.directory.appendingPathComponent(Self.key(for: url.absoluteString))
        if FileManager.default.fileExists(atPath: file.path) {
            // A hit counts as a use: the eviction order is the files' modification times.
            try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: file.path)
            return file
        }
        let data = try await self.fetch(url)
        do {
            try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
            try data.write(to: file, options: .atomic)
        } catch {
            throw ImageCacheError(.storageFailed, "cannot write \(file.path): \(error)")
        }
        self.evict(keeping: file)
        return file
    }

    /// A GET on the SDK's event loops (`HTTPFetch`), its body bounded as it
    /// arrives: a larger image ends the fetch instead of filling memory.
    private func fetch(_ url: URL) async throws(ImageCacheError) -> Data {
        let response: HTTPFetch.Response
        do {
            response = try await HTTPFetch.request(
                "GET", url, timeout: self.timeout, keepingBodyUpTo: self.maximumImageBytes,
                on: MultiThreadedEventLoopGroup.singleton.next())
        } catch let failure as HTTPFetch.Failure where failure.kind == .tooLarge {
            throw ImageCacheError(.tooLarge, "\(url) is larger than \(self.maximumImageBytes) bytes")
        } catch {
            throw ImageCacheError(.fetchFailed, "\(url): \(error)")
        }
        guard response.status == 200, let data = response.body else {
            throw ImageCacheError(.fetchFailed, "\(url) answered \(response.status)")
        }
        return data
    }

    /// Removes the least recently used images until the folder fits, never `kept`.
    private func evict(keeping kept: URL) {
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        guard
            let files = try? FileManager.default.contentsOfDirectory(
                at: self.directory, includingPropertiesForKeys: keys)
        else { return }
        var entries = files.compactMap { file -> (URL, Int, Date)? in
            guard let values = try? file.resourceValues(forKeys: Set(keys)) else { return nil }
            return (file, values.fileSize ?? 0, values.contentModificationDate ?? .distantPast)
        }
        var total = entries.reduce(0) { $0 + $1.1 }
        entries.sort { $0.2 < $1.2 }
        for (file, size, _) in entries
        where total > self.maximumBytes && file.lastPathComponent != kept.lastPathComponent {
            try? FileManager.default.removeItem(at: file)
            total -= size
        }
    }

    /// A file name for `url`: its 64-bit FNV-1a hash and its length, in hex.
    static func key(for url: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return String(hash, radix: 16) + "-" + String(url.utf8.count, radix: 16)
    }
}
