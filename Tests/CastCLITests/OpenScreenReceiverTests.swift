import CastTestSupport
import Foundation
import Testing

/// Google's own receiver, Open Screen's `cast_receiver`, decoding what our
/// code sends — a receiver we did not write. It is built outside the
/// repository (`../shared/peers.md` says how) with a one-line log where a
/// frame is decoded (`DECODED video frame 640x360 codec=vp9 frame_id=N`, or
/// `decoded frame video 640x360 fmt=0` with its codec in a `Found codec` line);
/// `CAST_OPEN_SCREEN_RECEIVER` names that binary. Without it the suite is
/// skipped, as on CI's fresh machine.
@Suite(
    .timeLimit(.minutes(5)),
    .enabled(
        if: OpenScreenReceiver.binary != nil,
        "set CAST_OPEN_SCREEN_RECEIVER to an Open Screen cast_receiver built with the decoded-frame log"))
struct OpenScreenReceiverTests {
    /// The samples embed CastRemoteDisplay without CastCapture and send
    /// pictures the app draws — BGRA on the CPU, RGBA with OpenGL ES through
    /// EGL: Open Screen decodes every one.
    @Test(arguments: ["sample-rendered-screen", "sample-egl-screen"])
    func itDecodesEveryFrameASampleDraws(_ name: String) async throws {
        try await RealTimeTurns.take(.childProcesses) {
            let receiver = try await OpenScreenReceiver.start()
            let sample: CastCommandLineTests.Run
            do {
                sample = try await CastCommandLineTests.run(
                    CastCommandLineTests.executable(name), ["127.0.0.1", "\(OpenScreenReceiver.port)"])
            } catch {
                _ = receiver.stop()
                throw error
            }
            let log = receiver.stop()
            #expect(sample.status == 0, "\(sample.stderr)")
            let sent = try #require(
                sample.stdout.split(separator: " ").dropFirst().first.flatMap { Int($0) }, "\(sample.stdout)")
            let decoded = Self.decoded("video", in: log)
            #expect(sent > 0)
            #expect(decoded.count == sent, "\(decoded.count) of \(sent) decoded")
            #expect(["codec=vp9", "codec=vp8", "Found codec: vp9", "Found codec: vp8"].contains { log.contains($0) })
        }
    }
}

/// A running Open Screen `cast_receiver` on loopback, port 8010.
final class OpenScreenReceiver: Sendable {
    static let port = 8010
    /// The binary `CAST_OPEN_SCREEN_RECEIVER` names, if it is executable.
    static let binary: String? = ProcessInfo.processInfo.environment["CAST_OPEN_SCREEN_RECEIVER"].flatMap {
        FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil
    }

    let process: Process
    let logFile: URL
    let folder: URL

    private init(process: Process, logFile: URL, folder: URL) {
        self.process = process
        self.logFile = logFile
        self.folder = folder
    }

    /// Writes a developer key and certificate (`-g`, valid three days) in a
    /// folder of its own, starts the receiver with them on `lo`, and waits
    /// until its port accepts connections.
    static func start() async throws -> OpenScreenReceiver {
        let binary = try #require(Self.binary)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("open-screen-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let generate = Process()
        generate.executableURL = URL(fileURLWithPath: binary)
        generate.arguments = ["-g"]
        generate.currentDirectoryURL = folder
        generate.standardOutput = FileHandle.nullDevice
        generate.standardError = FileHandle.nullDevice
        try generate.run()
        generate.waitUntilExit()
        let logFile = folder.appendingPathComponent("receiver.log")
        guard FileManager.default.createFile(atPath: logFile.path, contents: nil) else {
            throw POSIXError(.EACCES)
        }
        let log = try FileHandle(forWritingTo: logFile)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [
            "-x", "-p", folder.appendingPathComponent("generated_root_cast_receiver.key").path,
            "-d", folder.appendingPathComponent("generated_root_cast_receiver.crt").path, "lo",
        ]
        // SDL's own signal handlers would keep SIGTERM from ending it.
        process.environment = ProcessInfo.processInfo.environment.merging([
            "SDL_NO_SIGNAL_HANDLERS": "1", "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy",
        ]) { $1 }
        process.standardOutput = log
        process.standardError = log
        try process.run()
        let receiver = OpenScreenReceiver(process: process, logFile: logFile, folder: folder)
        do {
            _ = try await retrying(attempts: 200) {
                let probe = try await CommandOutput.of(["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/\(Self.port)"])
                guard probe.status == 0 else { throw POSIXError(.ECONNREFUSED) }
            }
        } catch {
            _ = receiver.stop()
            throw error
        }
        return receiver
    }

    /// Stops the receiver and returns its log (decode errors pad with NUL bytes; they are dropped).
    func stop() -> String {
        // Killed: its log is written as it goes, and nothing of it needs an orderly end.
        kill(self.process.processIdentifier, SIGKILL)
        self.process.waitUntilExit()
        let data = (try? Data(contentsOf: self.logFile)) ?? Data()
        try? FileManager.default.removeItem(at: self.folder)
        return String(decoding: data.filter { $0 != 0 }, as: UTF8.self)
    }
}

extension OpenScreenReceiverTests {
    /// Open Screen's receiver as a speaker of `cast speakers` (issue 35):
    /// a tone played into its sink reaches it over audio-only Cast
    /// Streaming and it decodes the Opus frames; silence ends the stream.
    @Test func itDecodesTheSoundPlayedIntoItsSink() async throws {
        try await RealTimeTurns.take(.childProcesses) {
            try await SoundServer.with { sound in
                let receiver = try await OpenScreenReceiver.start()
                let log: String
                let speakers: InteractiveProcess
                do {
                    speakers = try InteractiveProcess([
                        CastCommandLineTests.executable("cast"), "speakers", "--device",
                        "127.0.0.1:\(OpenScreenReceiver.port)", "--no-mdns", "--audio-server", sound.server,
                        "--config", "/nonexistent/speakers.conf", "--grace", "1",
                    ])
                    let sink = "cast.127_0_0_1"
                    let made = try await waitUntil(within: .seconds(20)) {
                        speakers.stderr.contains { $0.contains("sink \(sink) added") }
                    }
                    #expect(made, "\(speakers.stderr)")
                    let tone = try sound.playTone(frequency: 1_000, amplitude: 0.5, seconds: 20, into: sink)
                    let streamed = try await waitUntil(within: .seconds(20)) {
                        speakers.stderr.contains { $0.contains("streaming to") }
                    }
                    #expect(streamed, "\(speakers.stderr)")
                    // A second of sound decoded, as its log says, before the tone stops.
                    let heard = try await waitUntil(within: .seconds(20)) {
                        let log = (try? Data(contentsOf: receiver.logFile)) ?? Data()
                        return Self.decoded("audio", in: String(decoding: log, as: UTF8.self)).count > 100
                    }
                    #expect(heard)
                    await tone.stop()
                    let stopped = try await waitUntil(within: .seconds(20)) {
                        speakers.stderr.contains { $0.contains("stopped streaming") }
                    }
                    #expect(stopped, "\(speakers.stderr)")
                    speakers.signal(SIGINT)
                    #expect(try await speakers.exit(within: .seconds(20)) == 0, "\(speakers.stderr)")
                } catch {
                    _ = receiver.stop()
                    throw error
                }
                log = receiver.stop()
                let decoded = Self.decoded("audio", in: log)
                print(
                    "Open Screen decoded \(decoded.count) audio frames from the sink; the first: \(decoded.first ?? "")"
                )
                // 10 ms Opus frames: most of what played before the tone stopped (at
                // least a second of it) decoded, at 48 kHz in stereo.
                #expect(decoded.count >= 100, "\(decoded.count) audio frames decoded; \(speakers.stderr)")
                // (A build without the decoded-frame log names the codec once, not the rate.)
                #expect(
                    decoded.first?.contains("48000Hz 2ch codec=opus") == true || log.contains("Found codec: opus"),
                    "\(decoded.first ?? "")")
            }
        }
    }
}
