public import Foundation
import NIOConcurrencyHelpers

/// Where each local file was stopped, so the next play of it resumes there:
/// the media servers' and players' "continue watching", kept in one small
/// JSON file (the app's XDG state directory is the place for it).
///
/// A file is known by its path, size and modification time: the same film
/// moved, replaced or re-encoded starts from the beginning. A position is
/// kept only where resuming helps: not in the first ``minimumPosition``
/// seconds, and not in the last stretch of a film whose length is known
/// (the credits; ``finishedMargin(duration:)``), where the film counts as watched and
/// is forgotten. The file holds at most `capacity` films, the least
/// recently stopped going first. A missing or unreadable file is an empty
/// history, never an error.
///
/// ```swift
/// let positions = ResumePositions(fileURL: XDGDirectory.state.file("resume.json", application: "cast"))
/// let start = positions.position(for: film) ?? 0
/// // … play from `start`; when it stops at `position` …
/// try positions.remember(position, duration: duration, for: film)
/// ```
public final class ResumePositions: Sendable {
    /// Positions earlier than this (seconds) are not worth resuming.
    public static let minimumPosition: Double = 10
    /// The end of a film that counts as watched: the larger of 30 s and 5 % of its length.
    public static func finishedMargin(duration: Double) -> Double { max(30, duration * 0.05) }

    private struct Entry: Codable, Hashable {
        var path: String
        var size: Int64
        var modified: Double
        var position: Double
        var stopped: Double
    }

    /// The file the positions are kept in.
    public let fileURL: URL
    private let capacity: Int
    private let lock = NIOLock()

    /// Positions kept in `fileURL`, at most `capacity` of them.
    public init(fileURL: URL, capacity: Int = 200) {
        self.fileURL = fileURL
        self.capacity = max(1, capacity)
    }

    /// Where `file` was stopped, if it was and is still the same file.
    public func position(for file: URL) -> Double? {
        guard let identity = Self.identity(of: file) else { return nil }
        return self.lock.withLock {
            self.read().first {
                $0.path == identity.path && $0.size == identity.size && $0.modified == identity.modified
            }?
            .position
        }
    }

    /// Remembers that `file` stopped at `position` seconds (of `duration`, if
    /// known); a position too near either end forgets it instead.
    /// - Throws: the file system's error when the positions cannot be written.
    public func remember(_ position: Double, duration: Double?, for file: URL, at now: Date = Date()) throws {
        guard let identity = Self.identity(of: file) else { return }
        let worthResuming =
            position.isFinite && position >= Self.minimumPosition
            && (duration.map { $0 <= 0 || position < $0 - Self.finishedMargin(duration: $0) } ?? true)
        try self.lock.withLock {
            var entries = self.read().filter { $0.path != identity.path }
            if worthResuming {
                entries.append(
                    Entry(
                        path: identity.path, size: identity.size, modified: identity.modified, position: position,
                        stopped: now.timeIntervalSince1970))
            }
            entries.sort { $0.stopped > $1.stopped }
            try self.write(Array(entries.prefix(self.capacity)))
        }
    }

    /// Forgets `file` (it was watched to the end).
    /// - Throws: the file system's error when the positions cannot be written.
    public func forget(_ file: URL) throws {
        guard let identity = Self.identity(of: file) else { return }
        try self.lock.withLock {
            let entries = self.read()
            let kept = entries.filter { $0.path != identity.path }
            if kept.count != entries.count { try self.write(kept) }
        }
    }

    /// The file's resolved path, size and modification time; `nil` when it cannot be read.
    private static func identity(of file: URL) -> (path: String, size: Int64, modified: Double)? {
        let path = file.standardizedFileURL.resolvingSymlinksInPath().path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = (attributes[.size] as? NSNumber)?.int64Value,
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970
        else { return nil }
        return (path, size, modified)
    }

    private func read() -> [Entry] {
        guard let data = try? Data(contentsOf: self.fileURL),
            let entries = try? JSONDecoder().decode([Entry].self, from: data)
        else { return [] }
        return entries
    }

    /// Writes `entries` whole, through a temporary file renamed over the old one.
    private func write(_ entries: [Entry]) throws {
        let folder = self.fileURL.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try JSONEncoder().encode(entries).write(to: self.fileURL, options: .atomic)
    }
}
