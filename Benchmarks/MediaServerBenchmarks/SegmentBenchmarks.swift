// Seekable conversion (issue 37): how long until the receiver has media
// from a film that needs converting, served as HLS, against ffmpeg alone
// doing the same conversion of the same seconds, in the same iteration:
// - start: ffprobe, the plan, the film served from its start (as `cast
//   play` serves it: converting begins at once), then the playlist and the
//   first segment fetched with curl, as a receiver fetches them, ÷ ffmpeg
//   converting the film's first 6 s alone (the plan's own arguments, into
//   one file);
// - seek: with the first segment served, the segment at 80 % fetched ÷
//   ffmpeg converting 7 s from a second before that point alone (what the
//   run started there converts before its segment is whole).
// The film: 5 minutes of 1280×720 MPEG-4 Part 2 at 25 fps with AC-3 sound,
// made once here, converted for a first-generation Chromecast (video to
// H.264, sound to AAC). Skipped without ffmpeg.

import Benchmark
import BenchmarkSupport
import CastMediaServer
import Foundation

/// `work` on a thread of its own, awaited: the benchmark's async closure
/// must not block one of the pool's threads (a curl waited for there, with
/// the runner holding the other, left the server's handlers no thread:
/// the first run hung with its request unanswered).
func offThePool<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { done in Thread.detachNewThread { done.resume(returning: work()) } }
}

/// Runs `arguments[0]` to its end; its wall time, or nil when it failed.
func timedRun(_ arguments: [String]) -> Duration? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arguments[0])
    process.arguments = Array(arguments.dropFirst())
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    let clock = ContinuousClock()
    let start = clock.now
    guard (try? process.run()) != nil else { return nil }
    process.waitUntilExit()
    return process.terminationStatus == 0 ? clock.now - start : nil
}

/// ffmpeg converting `seconds` from `from` of `film` as `plan` says, alone, into `output`.
func ffmpegAlone(_ plan: ConversionPlan, film: URL, from: Double, seconds: Double, output: URL) -> Duration? {
    var arguments = plan.ffmpegArguments(input: film.path, output: output.path)
    // Before the output: the first seconds only, from `from` (an input seek, as the runs do).
    arguments.insert(contentsOf: ["-t", String(seconds)], at: arguments.count - 1)
    if from > 0, let input = arguments.firstIndex(of: "-i") {
        arguments.insert(contentsOf: ["-ss", String(from)], at: input)
    }
    return timedRun(["/usr/bin/ffmpeg"] + arguments)
}

func segmentBenchmarks(in folder: URL) {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg") else {
        print("HLS conversion benchmarks skipped: no ffmpeg")
        return
    }
    let film = folder.appendingPathComponent("film-720p.mkv")
    guard
        timedRun([
            "/usr/bin/ffmpeg", "-v", "error", "-nostdin", "-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=25", "-f",
            "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "300", "-pix_fmt", "yuv420p", "-c:v", "mpeg4",
            "-q:v", "5", "-c:a", "ac3", "-ac", "2", "-y", film.path,
        ]) != nil
    else {
        print("HLS conversion benchmarks skipped: cannot make the film")
        return
    }
    let tools = MediaTools.installed()
    let configuration = Benchmark.Configuration(
        metrics: [
            .custom("ours ÷ ffmpeg alone (×1000)", polarity: .prefersSmaller, useScalingFactor: false),
            .custom("ours (ms)", polarity: .prefersSmaller, useScalingFactor: false),
            .custom("ffmpeg alone (ms)", polarity: .prefersSmaller, useScalingFactor: false),
        ], warmupIterations: 1, maxDuration: .seconds(60), maxIterations: 5)
    for seeking in [false, true] {
        let name =
            seeking
            ? "HLS conversion, a seek to 80 % to its segment served ÷ ffmpeg alone"
            : "HLS conversion, cast play to the first segment served ÷ ffmpeg alone"
        Benchmark(name, configuration: configuration) { benchmark in
            let server = try await MediaServer.start(toward: "127.0.0.1")
            let clock = ContinuousClock()
            var ours = Duration.zero
            var alone = Duration.zero
            for _ in benchmark.scaledIterations {
                let start = clock.now
                let media = try await tools.probe(film)
                let plan = try ConversionPlan(media: media, fileName: film.lastPathComponent, device: .chromecast)
                let playlist = try await server.serve(
                    file: film, segmenting: plan, media: media, tools: tools, startingAt: 0)
                let base = playlist.deletingLastPathComponent()
                if !seeking {
                    await offThePool { curl([playlist.absoluteString], expecting: 200, size: -1) }
                }
                if seeking {
                    let first = base.appendingPathComponent("0.ts").absoluteString
                    await offThePool { curl([first], expecting: 200, size: -1) }
                }
                let segment = base.appendingPathComponent("\(seeking ? 40 : 0).ts").absoluteString
                let fetchStart = seeking ? clock.now : start
                await offThePool { curl([segment], expecting: 200, size: -1) }
                ours += clock.now - fetchStart
                server.withdraw(playlist)
                let from = seeking ? 239.0 : 0
                let output = folder.appendingPathComponent("alone.mp4")
                guard
                    let time = await offThePool({
                        ffmpegAlone(plan, film: film, from: from, seconds: seeking ? 7 : 6, output: output)
                    })
                else { throw BenchmarkSupportError(description: "ffmpeg alone failed") }
                alone += time
            }
            await server.stop()
            let milliseconds = { (duration: Duration) in
                Int(duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000)
            }
            benchmark.measurement(
                .custom("ours ÷ ffmpeg alone (×1000)", polarity: .prefersSmaller, useScalingFactor: false),
                Int(1_000 * Double(milliseconds(ours)) / Double(max(1, milliseconds(alone)))))
            benchmark.measurement(
                .custom("ours (ms)", polarity: .prefersSmaller, useScalingFactor: false),
                milliseconds(ours) / max(1, benchmark.scaledIterations.count))
            benchmark.measurement(
                .custom("ffmpeg alone (ms)", polarity: .prefersSmaller, useScalingFactor: false),
                milliseconds(alone) / max(1, benchmark.scaledIterations.count))
        }
    }
}
