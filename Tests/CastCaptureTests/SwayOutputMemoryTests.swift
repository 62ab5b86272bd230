import Foundation
import Testing

@testable import CastCapture

/// The outputs casts left on sway 1.7 (which cannot remove them), kept per
/// sway instance so that the next cast on each takes its own again.
@Suite(.timeLimit(.minutes(1))) struct SwayOutputMemoryTests {
    @Test func eachSwayKeepsItsOwnOutputAndOneThatIsGoneIsForgotten() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sway-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // The sway instances' sockets: files that exist while each sway runs.
        let first = folder.appendingPathComponent("sway-ipc.1.sock").path
        let second = folder.appendingPathComponent("sway-ipc.2.sock").path
        for socket in [first, second] { #expect(FileManager.default.createFile(atPath: socket, contents: nil)) }
        let memory = SwayOutputMemory(fileURL: folder.appendingPathComponent("state/cast-sway-outputs"))

        memory.remember("HEADLESS-2", leftOn: first)
        memory.remember("HEADLESS-5", leftOn: second)
        // A cast on the second sway does not make the first forget its output.
        #expect(memory.output(leftOn: first) == "HEADLESS-2")
        #expect(memory.output(leftOn: second) == "HEADLESS-5")

        memory.forget(leftOn: second)
        #expect(memory.output(leftOn: second) == nil)
        #expect(memory.output(leftOn: first) == "HEADLESS-2")

        // The first sway exits: its line no longer answers, and goes at the next change.
        try FileManager.default.removeItem(atPath: first)
        #expect(memory.output(leftOn: first) == nil)
        memory.remember("HEADLESS-3", leftOn: second)
        let text = try String(contentsOf: memory.fileURL, encoding: .utf8)
        #expect(text == "\(second) HEADLESS-3\n")
        memory.forget(leftOn: second)
        #expect(!FileManager.default.fileExists(atPath: memory.fileURL.path))
    }
}
