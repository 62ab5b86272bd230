import CastMediaServer
import Foundation
import Testing

/// Where a film was stopped, remembered per file: only where resuming
/// helps, forgotten when watched, lost when the file changes, bounded, and
/// never an error for a history that is missing or damaged.
@Suite(.timeLimit(.minutes(1)))
struct ResumePositionsTests {
    final class Folder: Sendable {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("resume-\(UUID().uuidString)")
        init() throws { try FileManager.default.createDirectory(at: self.url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: self.url) }

        func film(_ name: String, bytes: Int = 1_000) throws -> URL {
            let file = self.url.appendingPathComponent(name)
            try Data(repeating: 1, count: bytes).write(to: file)
            return file
        }

        var history: URL { self.url.appendingPathComponent("state/cast/resume.json") }
    }

    @Test func aStoppedFilmResumesWhereItStoppedInTheNextProcessToo() throws {
        let folder = try Folder()
        let film = try folder.film("Film.mkv")
        try ResumePositions(fileURL: folder.history).remember(754.5, duration: 7_200, for: film)
        // Another instance, as the next `cast play` is: read from the file.
        let next = ResumePositions(fileURL: folder.history)
        #expect(next.position(for: film) == 754.5)
        #expect(next.position(for: try folder.film("Other.mkv")) == nil)
        // Stopped again later: the newer position.
        try next.remember(1_000, duration: 7_200, for: film)
        #expect(ResumePositions(fileURL: folder.history).position(for: film) == 1_000)
    }

    @Test func theBeginningAndTheCreditsAreNotWorthResumingAndTheEndForgets() throws {
        let folder = try Folder()
        let film = try folder.film("Film.mkv")
        let positions = ResumePositions(fileURL: folder.history)
        try positions.remember(9.9, duration: 7_200, for: film)
        #expect(positions.position(for: film) == nil)
        try positions.remember(600, duration: 7_200, for: film)
        #expect(positions.position(for: film) == 600)
        // In the last 5 % (360 s of two hours): watched, forgotten.
        try positions.remember(6_900, duration: 7_200, for: film)
        #expect(positions.position(for: film) == nil)
        // A short clip: the last 30 s count.
        let clip = try folder.film("Clip.mp4")
        try positions.remember(75, duration: 100, for: clip)
        #expect(positions.position(for: clip) == nil)
        try positions.remember(65, duration: 100, for: clip)
        #expect(positions.position(for: clip) == 65)
        // Unknown length (a stream still converting): kept.
        try positions.remember(3_000, duration: nil, for: film)
        #expect(positions.position(for: film) == 3_000)
        try positions.forget(film)
        #expect(positions.position(for: film) == nil)
        #expect(positions.position(for: clip) == 65)
    }

    @Test func aChangedFileStartsFromTheBeginning() throws {
        let folder = try Folder()
        let film = try folder.film("Film.mkv", bytes: 1_000)
        let positions = ResumePositions(fileURL: folder.history)
        try positions.remember(600, duration: nil, for: film)
        _ = try folder.film("Film.mkv", bytes: 2_000)  // re-encoded: another size
        #expect(positions.position(for: film) == nil)
        // A file that is gone has no position and is not an error.
        try FileManager.default.removeItem(at: film)
        #expect(positions.position(for: film) == nil)
        try positions.remember(600, duration: nil, for: film)
    }

    @Test func theHistoryIsBoundedTheLeastRecentlyStoppedGoingFirst() throws {
        let folder = try Folder()
        let positions = ResumePositions(fileURL: folder.history, capacity: 3)
        let films = try (0..<4).map { try folder.film("Film \($0).mkv") }
        for (index, film) in films.enumerated() {
            try positions.remember(100, duration: nil, for: film, at: Date(timeIntervalSince1970: Double(index)))
        }
        #expect(positions.position(for: films[0]) == nil)
        #expect(films.dropFirst().allSatisfy { positions.position(for: $0) == 100 })
        let entries = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.history)) as? [Any]
        #expect(entries?.count == 3)
    }

    @Test func aDamagedHistoryIsAnEmptyOneAndIsReplaced() throws {
        let folder = try Folder()
        let film = try folder.film("Film.mkv")
        try FileManager.default.createDirectory(
            at: folder.history.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("{not json".utf8).write(to: folder.history)
        let positions = ResumePositions(fileURL: folder.history)
        #expect(positions.position(for: film) == nil)
        try positions.remember(600, duration: nil, for: film)
        #expect(ResumePositions(fileURL: folder.history).position(for: film) == 600)
    }
}
