public import Foundation

/// A real sound server for a test, speaking PulseAudio's protocol: a
/// PulseAudio daemon, or PipeWire with WirePlumber and PipeWire's pulse
/// server (what most desktops now run), each with its own socket and
/// runtime directory and one null sink (`cast_test`) as the default sink;
/// stopped when the test is done. Shared by the capture and speakers tests.
public final class SoundServer: Sendable {
    /// Which daemon serves.
    public enum Kind: String, Sendable, CaseIterable {
        /// PulseAudio 16, with only the test's sink loaded.
        case pulseAudio
        /// PipeWire + WirePlumber + pipewire-pulse (0.3.65 + 0.4.13 on Debian 12), without the machine's devices.
        case pipeWire
    }

    public let kind: Kind
    public let directory: URL
    private let daemons: [DaemonProcess]
    /// On PipeWire, the desktop it is part of (its bus, PipeWire and pulse server).
    public let desktop: ScreenCastDesktop?
    /// The server's address for libpulse (`PULSE_SERVER`, `pactl --server`).
    public var server: String {
        self.desktop?.pulseServerAddress ?? "unix:\(self.directory.path)/native"
    }

    private init(kind: Kind, directory: URL, daemons: [DaemonProcess], desktop: ScreenCastDesktop? = nil) {
        self.kind = kind
        self.directory = directory
        self.daemons = daemons
        self.desktop = desktop
    }

    /// Starts the daemons and waits for the server's socket (and, on PipeWire, the test's sink).
    public static func start(_ kind: Kind = .pulseAudio) async throws -> SoundServer {
        switch kind {
        case .pulseAudio:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "cast-pulse-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            return try await Self.startPulseAudio(in: directory)
        case .pipeWire:
            let desktop = try await ScreenCastDesktop.start(pulseServer: true)
            let server = SoundServer(kind: kind, directory: desktop.directory, daemons: [], desktop: desktop)
            // As PulseAudio's `-L module-null-sink`: the sink apps play into by default.
            let made = try await CommandOutput.of([
                "pactl", "--server=\(server.server)", "load-module", "module-null-sink", "sink_name=cast_test",
                "rate=48000",
            ])
            guard made.status == 0 else {
                await server.stop()
                throw TestDaemonError.requestFailed("pactl load-module: \(made.stderr)")
            }
            _ = try await CommandOutput.of(["pactl", "--server=\(server.server)", "set-default-sink", "cast_test"])
            return server
        }
    }

    /// The server restarted, as a user's sound server restarts: this daemon
    /// ends and a new one, with none of its sinks, listens at the same address
    /// (PulseAudio only).
    public func restarted() async throws -> SoundServer {
        precondition(self.kind == .pulseAudio, "only a PulseAudio test server restarts")
        await self.end()
        return try await Self.startPulseAudio(in: self.directory)
    }

    /// Ends the daemons as a sound server that crashed: nothing answers at
    /// its address until ``restarted()`` (PulseAudio only).
    public func end() async {
        for daemon in self.daemons { await daemon.stop() }
        // Its socket file stays behind; a new daemon's is waited for.
        try? FileManager.default.removeItem(at: self.directory.appendingPathComponent("native"))
    }

    private static func startPulseAudio(in directory: URL) async throws -> SoundServer {
        let daemon = try DaemonProcess(
            "pulseaudio",
            [
                "-n", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "--log-target=stderr",
                "-L", "module-native-protocol-unix socket=\(directory.path)/native auth-anonymous=1",
                "-L", "module-null-sink sink_name=cast_test rate=48000",
            ],
            environment: ["HOME": directory.path, "XDG_RUNTIME_DIR": directory.path])
        let socket = directory.appendingPathComponent("native").path
        guard await DaemonProcess.wait(for: .seconds(10), until: { FileManager.default.fileExists(atPath: socket) })
        else {
            await daemon.stop()
            throw TestDaemonError.didNotStart("pulseaudio")
        }
        return SoundServer(kind: .pulseAudio, directory: directory, daemons: [daemon])
    }

    /// Plays `seconds` of a sine at `frequency` Hz and `amplitude` (0…1) into `sink`, in the background.
    public func playTone(
        frequency: Double, amplitude: Float, seconds: Double, into sink: String = "cast_test",
        application: String = "cast tests"
    ) throws -> DaemonProcess {
        // One second of the sine, repeated (seamless for a whole number of hertz):
        // no per-sample work for the whole length
        // (which takes a sanitizer build seconds of CPU).
        let rate = 48_000
        var second: [Float] = []
        second.reserveCapacity(rate * 2)
        for index in 0..<rate {
            let value = amplitude * Float(sin(2 * Double.pi * frequency * Double(index) / Double(rate)))
            second.append(value)
            second.append(value)
        }
        let samples = Array([[Float]](repeating: second, count: max(1, Int(seconds.rounded(.up)))).joined())
        let file = self.directory.appendingPathComponent("tone-\(UUID().uuidString).raw")
        try samples.withUnsafeBytes { try Data($0).write(to: file) }
        // 250 ms of buffer in the server: a pacat starved of CPU on a busy
        // machine must not leave gaps of silence in the tone.
        return try DaemonProcess(
            "pacat",
            [
                "--server=\(self.server)", "--device=\(sink)", "--format=float32le", "--rate=48000",
                "--channels=2", "--latency-msec=250", "--property=application.name=\(application)", "--raw",
                file.path,
            ])
    }

    /// Runs `body` with a server of `kind` that is stopped afterwards.
    public static func with<Result>(
        _ kind: Kind = .pulseAudio, _ body: (SoundServer) async throws -> Result
    ) async throws -> Result {
        let server = try await Self.start(kind)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Stops the daemons and removes the directory.
    public func stop() async {
        for daemon in self.daemons { await daemon.stop() }
        if let desktop = self.desktop {
            await desktop.stop()
        } else {
            try? FileManager.default.removeItem(at: self.directory)
        }
    }
}
