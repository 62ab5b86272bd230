import CastEmulator
import CastKit
import CastTestSupport
import Foundation
import Synchronization
import Testing

/// `cast-receiver`: the emulator as a standalone process, which other
/// senders use — ours and pychromecast.
@Suite(.timeLimit(.minutes(10))) struct CastReceiverCommandTests {
    /// A running `cast-receiver` and the port it reported.
    final class Receiver: Sendable {
        let process: Process
        let port: Int
        let output: Pipe
        /// What it printed after its first line, as far as ``read(until:)`` read.
        private let printed = Mutex(Data())

        /// Starts the built `cast-receiver` with `arguments`, as the suite's
        /// ordinary user (``CastCommandLineTests/user``) where there is one.
        convenience init(_ arguments: [String]) throws {
            let command = [CastCommandLineTests.executable("cast-receiver")] + arguments
            guard let user = CastCommandLineTests.user else {
                try self.init(command: command)
                return
            }
            try self.init(command: try user.command(command), environment: user.environment)
        }

        /// Runs `command`, which starts `cast-receiver` (behind `setpriv` or
        /// `ip netns exec`, which exec it) with `environment` added, and
        /// reads the port it reports.
        init(command: [String], environment: [String: String] = [:]) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: command[0])
            process.arguments = Array(command.dropFirst())
            process.environment = childEnvironment(adding: environment)
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            // The first line: cast-receiver "NAME" listening on HOST:PORT
            var line = Data()
            while !line.contains(UInt8(ascii: "\n")) {
                let chunk = output.fileHandleForReading.availableData
                guard !chunk.isEmpty else { break }
                line.append(chunk)
            }
            let text = String(decoding: line, as: UTF8.self)
            guard let port = text.split(separator: "\n").first?.split(separator: ":").last.flatMap({ Int($0) }) else {
                process.terminate()
                throw NamespaceError(message: "cast-receiver did not report its port: \(text)")
            }
            self.process = process
            self.port = port
            self.output = output
            // What came in the same read after the first line (the setup server's line, say) is kept.
            if let newline = line.firstIndex(of: UInt8(ascii: "\n")) {
                self.printed.withLock { $0 = Data(line[line.index(after: newline)...]) }
            }
        }

        /// Blocks until the receiver has printed a whole line holding `text`, or ended.
        func read(until text: String) {
            func hasLine() -> Bool {
                let printed = String(decoding: self.printed.withLock { $0 }, as: UTF8.self)
                guard let found = printed.range(of: text) else { return false }
                return printed[found.upperBound...].contains("\n")
            }
            while !hasLine() {
                let chunk = self.output.fileHandleForReading.availableData
                guard !chunk.isEmpty else { return }
                self.printed.withLock { $0.append(chunk) }
            }
        }

        /// What it printed after its first line, as far as ``read(until:)`` read.
        var printedSoFar: String { String(decoding: self.printed.withLock { $0 }, as: UTF8.self) }

        /// Stops the receiver and returns what it logged.
        func stop() -> String {
            self.process.terminate()
            self.process.waitUntilExit()
            let rest = self.output.fileHandleForReading.readDataToEndOfFile()
            return String(decoding: self.printed.withLock { $0 } + rest, as: UTF8.self)
        }
    }

    @Test func ourSenderControlsTheStandaloneReceiverAndItLogsWhatItReceived() async throws {
        try await RealTimeTurns.take(.childProcesses) { try await Self.controlTheStandaloneReceiver() }
    }

    private static func controlTheStandaloneReceiver() async throws {
        let receiver = try await onOwnThread {
            try Receiver(["--port", "0", "--name", "Standalone", "--seconds", "30"])
        }
        let launch = try await CastCommandLineTests.cast(
            "launch", "CC1AD845", "--device", "127.0.0.1:\(receiver.port)", "--json")
        #expect(launch.status == 0, "\(launch.stderr)")
        #expect(try launch.json()["displayName"] == "Default Media Receiver")
        let log = try await onOwnThread { receiver.stop() }
        #expect(log.contains("sender connected"))
        #expect(log.contains("CONNECT sender-0 → receiver-0") || log.contains("CONNECT "))
        #expect(log.contains(#""type":"LAUNCH""#))
    }

    /// `--setup-ports`: the device's setup server beside the Cast port, read by curl over HTTPS
    /// (its self-signed certificate accepted, as senders do) and plain HTTP.
    @Test func servesTheSetupServerWhenAsked() async throws {
        let receiver = try await onOwnThread {
            try Receiver([
                "--port", "0", "--name", "Den", "--profile", "nest-hub", "--setup-ports", "0,0", "--seconds", "30",
            ])
        }
        try await onOwnThread { receiver.read(until: "setup server on") }
        let printed = receiver.printedSoFar
        let line = try #require(printed.split(separator: "\n").first { $0.contains("setup server on") }, "\(printed)")
        let ports = line.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .punctuationCharacters)) }
        try #require(ports.count == 2, "\(line)")
        let secure = try await CommandOutput.of([
            "curl", "-sk", "https://127.0.0.1:\(ports[0])/setup/eureka_info?params=name,device_info",
        ])
        let info = try JSONValue(parsing: secure.stdout)
        #expect(info["device_info"]?["manufacturer"] == "Google Inc.", "\(secure.stdout)")
        #expect(info["device_info"]?["model_name"] == "Google Nest Hub")
        #expect(info["name"] == "Den")
        let plain = try await CommandOutput.of([
            "curl", "-s", "http://127.0.0.1:\(ports[1])/setup/eureka_info?params=name,device_info",
        ])
        #expect(try JSONValue(parsing: plain.stdout)["device_info"] == nil, "port 8008 leaves device_info out")
        _ = try await onOwnThread { receiver.stop() }
    }

    /// `--devices 3`: three devices in one process, each on its own port
    /// with its own state; `volume` on standard input changes every
    /// device's volume, each tells its sender, and the answer stamps each
    /// change; `quit` ends the process.
    @Test func aFleetOfDevicesRunsInOneProcessAndTakesCommands() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CastCommandLineTests.executable("cast-receiver"))
        process.arguments = ["--devices", "3", "--port", "0", "--seconds", "60"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let lines = output.fileHandleForReading
        let ready = try JSONValue(parsing: try await onOwnThread { Self.line(from: lines) })
        let listed = ready["ports"]?.arrayValue ?? []
        let ports = listed.compactMap(\.intValue)
        #expect(ports.count == 3 && Set(ports).count == 3)
        var links: [CastDeviceLink] = []
        for port in ports {
            let device = CastDevice(knownHost: IPAddress("127.0.0.1")!, port: port)
            let link = try await CastDeviceLink.connect(to: device, configuration: .init(deviceAuthentication: .off))
            // Each device has its own state; the round trip also means it handled our CONNECT.
            #expect(try await link.receiver.requestStatus().volume.level == 1)
            links.append(link)
        }
        let streams = links.map { $0.receiver.events() }
        input.fileHandleForWriting.write(Data("volume\n".utf8))
        let answer = try JSONValue(parsing: try await onOwnThread { Self.line(from: lines) })
        let level = try #require(answer["volume"]?.doubleValue)
        #expect(answer["changed"]?.arrayValue?.count == 3, "\(answer)")
        for events in streams {
            let seen = await first(events) { event in
                if case .volumeChanged(let volume) = event { return volume.level == level }
                return false
            }
            #expect(seen != nil, "every device tells its sender")
        }
        for link in links { await link.close() }
        input.fileHandleForWriting.write(Data("quit\n".utf8))
        try await onOwnThread { process.waitUntilExit() }
        #expect(process.terminationStatus == 0)
    }

    /// One line from `handle`, without its newline; what came before the end if it ended first.
    private static func line(from handle: FileHandle) -> String {
        var line = Data()
        while true {
            let byte = handle.readData(ofLength: 1)
            guard let first = byte.first, first != UInt8(ascii: "\n") else { break }
            line.append(first)
        }
        return String(decoding: line, as: UTF8.self)
    }

    @Test func listsItsProfiles() async throws {
        let run = try await CastCommandLineTests.run(
            CastCommandLineTests.executable("cast-receiver"), ["--list-profiles"])
        #expect(run.status == 0)
        let names = run.stdout.split(separator: "\n").compactMap { $0.split(separator: "\t").first.map(String.init) }
        #expect(names == ReceiverProfile.all.map(\.name))
        let unknown = try await CastCommandLineTests.run(
            CastCommandLineTests.executable("cast-receiver"), ["--profile", "toaster"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("open-screen"))
    }

    /// `cast screen` against `cast-receiver` on a clean loopback link: every
    /// frame sent is decoded, (almost) nothing is resent — before the
    /// emulator NACKed only packets known missing, 5–8 % were — and the
    /// receiver prints its stream report when the sender leaves.
    @Test func castScreenResendsAlmostNothingAndTheReceiverReportsTheStream() async throws {
        try await RealTimeTurns.take(.childProcesses) {
            let receiver = try await onOwnThread {
                try Receiver(["--port", "0", "--profile", "chromecast", "--seconds", "40"])
            }
            let screen = try await CastCommandLineTests.cast(
                "screen", "--test-pattern", "--width", "640", "--height", "360", "--seconds", "3", "--device",
                "127.0.0.1:\(receiver.port)", "--json")
            // The report comes when the receiver sees the sender leave: read until it has
            // come (the receiver ends by itself after 40 s), not a fixed 500 ms.
            try await onOwnThread { receiver.read(until: "  video: ") }
            let log = try await onOwnThread { receiver.stop() }
            #expect(screen.status == 0, "\(screen.stderr)")
            let statistics = try screen.json()
            let sent = try #require(statistics["videoFramesSent"]?.intValue)
            let resent = try #require(statistics["videoRetransmittedPackets"]?.intValue)
            let packets = try #require(statistics["videoPacketsSent"]?.intValue)
            #expect(log.contains("Remote Display stream report:"), "\(log.suffix(2_000))")
            let video = try #require(log.split(separator: "\n").first { $0.contains("  video: ") })
            #expect(video.contains("\(sent) decoded"), "\(video) — \(sent) sent")
            #expect(Double(resent) <= Double(packets) * 0.005, "\(resent) of \(packets) packets resent")
        }
    }

    /// The RenderedScreen sample, an app that embeds CastRemoteDisplay
    /// without CastCapture, draws BGRA pictures and hands them over through
    /// `PackedPictureConverter` (issue 34): `cast-receiver` decodes every
    /// frame it sent, 640×360 VP8.
    @Test func theRenderedScreenSampleIsDecodedFrameForFrame() async throws {
        try await RealTimeTurns.take(.childProcesses) {
            let receiver = try await onOwnThread {
                try Receiver(["--port", "0", "--profile", "chromecast", "--seconds", "40"])
            }
            let sample = try await CastCommandLineTests.run(
                CastCommandLineTests.executable("sample-rendered-screen"), ["127.0.0.1", "\(receiver.port)"])
            try await onOwnThread { receiver.read(until: "  video: ") }
            let log = try await onOwnThread { receiver.stop() }
            #expect(sample.status == 0, "\(sample.stderr)")
            let sent = try #require(
                sample.stdout.split(separator: " ").dropFirst().first.flatMap { Int($0) }, "\(sample.stdout)")
            #expect(sent > 0)
            let video = try #require(log.split(separator: "\n").first { $0.contains("  video: ") })
            #expect(video.contains("\(sent) decoded"), "\(video) — \(sent) sent")
        }
    }

    /// The MirrorScreen sample (issue 50): an app of under 40 lines mirrors
    /// an X display (Xvfb) and the desktop's sound (a PulseAudio daemon of
    /// the test's own) through one `DesktopMirror`; the emulator decodes its
    /// pictures and its sound.
    ///
    /// The whole machine's turn: the sample is a second process encoding a
    /// stream, and beside it (a sanitized build is 5-15x slower) a speaker
    /// test in this process decoded nothing for 30 s.
    @Test func theMirrorScreenSampleSendsTheScreenAndItsSound() async throws {
        try await VirtualDisplay.with(width: 320, height: 240) { display in
            try await SoundServer.with { sound in
                try await RealTimeTurns.take(.wholeMachine) {
                    try await Self.mirrorScreenSample(display: display, sound: sound)
                }
            }
        }
    }

    private static func mirrorScreenSample(display: VirtualDisplay, sound: SoundServer) async throws {
        try await CastCommandLineTests.withEmulator(takesTurn: false) { emulator, device in
            let run = try await CastCommandLineTests.run(
                CastCommandLineTests.executable("sample-mirror-screen"), [device, "2"],
                environment: ["DISPLAY": display.name, "PULSE_SERVER": sound.server])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("mirroring 320×240"), "\(run.stdout)")
            let report = try #require(emulator.streamingReport, "\(run.stdout)")
            #expect((report.video?.framesDecoded ?? 0) > 0, "\(report)")
            #expect((report.audio?.framesDecoded ?? 0) > 0, "\(report)")
        }
    }

    /// The EGL sample as a process: its OpenGL ES pictures are decoded frame for frame.
    @Test(.enabled(if: SurfacelessEGL.isAvailable, "needs EGL with Mesa's surfaceless platform"))
    func theEGLSampleIsDecodedFrameForFrame() async throws {
        // Software rendering and encoding beside a stream another test sends from this
        // process: Mesa draws on one thread, and the sample runs at the lowest priority
        // (nice 19), so it takes only what that stream leaves. What is checked — every
        // frame sent is decoded — does not depend on how fast it runs. (In the whole-machine
        // turn instead, it cost the busy test phase about 28 s of waiting for both lanes.)
        try await RealTimeTurns.take(.childProcesses) {
            let receiver = try await onOwnThread {
                try Receiver(["--port", "0", "--profile", "chromecast", "--seconds", "40"])
            }
            let sample = try await CastCommandLineTests.run(
                "/usr/bin/nice",
                ["-n", "19", CastCommandLineTests.executable("sample-egl-screen"), "127.0.0.1", "\(receiver.port)"],
                environment: ["LP_NUM_THREADS": "1"])
            try await onOwnThread { receiver.read(until: "  video: ") }
            let log = try await onOwnThread { receiver.stop() }
            #expect(sample.status == 0, "\(sample.stderr)")
            #expect(sample.stderr.contains("drawing with"), "\(sample.stderr)")
            let sent = try #require(
                sample.stdout.split(separator: " ").dropFirst().first.flatMap { Int($0) }, "\(sample.stdout)")
            #expect(sent > 0)
            let video = try #require(log.split(separator: "\n").first { $0.contains("  video: ") })
            #expect(video.contains("\(sent) decoded"), "\(video) — \(sent) sent")
        }
    }

    /// Every device is checked against Google's Cast roots: the emulator is
    /// not a Cast device, so the CLI warns — and refuses it when told to.
    @Test func anUnverifiedDeviceIsAWarningOrARefusal() async throws {
        let receiver = try await onOwnThread { try Receiver(["--port", "0", "--seconds", "30"]) }
        let device = "127.0.0.1:\(receiver.port)"
        let status = try await CastCommandLineTests.cast("status", "--device", device, "--json")
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stderr.contains("is not a verified Cast device"))
        let strict = try await CastCommandLineTests.cast("status", "--device", device, "--require-authentication")
        #expect(strict.status == 4, "\(strict.stderr)")
        _ = try await onOwnThread { receiver.stop() }
    }

    /// Open Screen's profile: the mirroring app launches; STOP is answered by a broadcast only.
    @Test func ourSenderLaunchesAndStopsOnTheOpenScreenProfile() async throws {
        let receiver = try await onOwnThread {
            try Receiver(["--port", "0", "--profile", "open-screen", "--seconds", "30"])
        }
        let device = "127.0.0.1:\(receiver.port)"
        let launch = try await CastCommandLineTests.cast("launch", "0F5096E8", "--device", device, "--json")
        #expect(launch.status == 0, "\(launch.stderr)")
        let stop = try await CastCommandLineTests.cast("stop-app", "--device", device, "--timeout", "5")
        #expect(stop.status == 0, "\(stop.stderr)")
        let status = try await CastCommandLineTests.cast("status", "--device", device, "--json")
        #expect(status.status == 0, "\(status.stderr)")
        _ = try await onOwnThread { receiver.stop() }
    }

    @Test(.enabled(if: NamespacePair.hasPychromecast, "needs python3 with pychromecast (make setup installs it)"))
    func pychromecastUsesTheStandaloneReceiver() async throws {
        try await RealTimeTurns.take(.childProcesses) { try await Self.drivenByPychromecast() }
    }

    private static func drivenByPychromecast() async throws {
        let receiver = try await onOwnThread { try Receiver(["--port", "0", "--seconds", "60"]) }
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/interop/pychromecast_session.py").path
        let run = try await CastCommandLineTests.run(
            "/usr/bin/env", ["python3", script, "interop", "127.0.0.1", "\(receiver.port)"])
        let log = try await onOwnThread { receiver.stop() }
        #expect(run.status == 0, "\(run.stderr)\nreceiver log:\n\(log)")
        let report = try JSONValue(parsing: String(try #require(run.stdout.split(separator: "\n").last)))
        #expect(report["launched"]?["app_id"] == "CC1AD845")
        #expect(report["volume"]?["volume_level"] == 0.4)
        #expect(log.contains("SET_VOLUME"))
    }
}
