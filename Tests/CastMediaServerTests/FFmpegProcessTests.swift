import CastTestSupport
import Foundation
import Testing

@testable import CastMediaServer

#if canImport(Glibc)
import Glibc
#endif

/// An ffmpeg run started from a Swift concurrency thread, as every
/// conversion starts one: those threads block SIGTERM (Dispatch's workers
/// do), a child inherits its parent thread's mask, and an ffmpeg that
/// blocked SIGTERM converted the rest of a film before a seek could start
/// the next run.
@Suite(
    .timeLimit(.minutes(1)),
    .enabled(if: MediaTools.installed().ffmpeg != nil, "needs ffmpeg (make setup installs it)"))
struct FFmpegProcessTests {
    /// The signals `pid` blocks, from `/proc/PID/status` (`SigBlk`, hexadecimal).
    static func blockedSignals(of pid: Int32) throws -> UInt64 {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") })
        return try #require(UInt64(line.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16))
    }

    @Test func aRunStartedOnAConcurrencyThreadReportsProgressBlocksNoSignalAndStopsAtOnce() async throws {
        let ffmpeg = try #require(MediaTools.installed().ffmpeg)
        // An hour of pictures at the speed they play (-re): it ends only when stopped.
        let run = try FFmpegProcess(
            ffmpeg,
            arguments: [
                "-nostdin", "-v", "error", "-progress", "pipe:1", "-re", "-f", "lavfi", "-i",
                "testsrc2=size=160x90:rate=25:duration=3600", "-f", "null", "-",
            ])
        #expect(run.status == .running)
        // Its progress is read as it comes: ffmpeg writes a block every half second of media
        // (here, of time), and a reader that waited for 4 KiB saw the first after about 8 s.
        let progressed = try await waitUntil(within: .seconds(5)) { run.converted > .zero }
        #expect(progressed, "no progress read in 5 s of playing speed")
        let pid = run.processIdentifier
        #expect(try Self.blockedSignals(of: pid) == 0, "ffmpeg blocks signals its parent thread blocked")
        run.pause(true)
        // stop() waits for the end: on a thread of its own, and waited for with a
        // deadline, so that a run that ignores it fails this test instead of hanging it.
        Thread { run.stop() }.start()
        let stopped = try await waitUntil(within: .seconds(20)) { run.status == .stopped }
        #expect(stopped, "ffmpeg did not stop: \(run.status)")
        if !stopped { kill(pid, SIGKILL) }
    }
}
