public import Foundation

/// A real PulseAudio daemon for a test: its own socket and runtime
/// directory, one null sink (`cast_test`) as the default sink, nothing
/// else loaded; stopped when the test is done. Shared by the capture and
/// speakers tests.
public final class SoundServer: Sendable {
    public let directory: URL
    public let daemon: DaemonProcess
    /// The server's address for libpulse (`PULSE_SERVER`, `pactl --server`).
    public var server: String { "unix:\(self.directory.path)/native" }

    private init(directory: URL, daemon: DaemonProcess) {
        self.directory = directory
        self.daemon = daemon
    }

    /// Starts the daemon and waits for its socket.
    public static func start() async throws -> SoundServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cast-pulse-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return try await Self.start(in: directory)
    }

    /// The server restarted, as a user's sound server restarts: this daemon
    /// ends and a new one, with none of its sinks, listens at the same address.
    public func restarted() async throws -> SoundServer {
        await self.daemon.stop()
        // Its socket file stays behind; the new daemon's is waited for.
        try? FileManager.default.removeItem(at: self.directory.appendingPathComponent("native"))
        return try await Self.start(in: self.directory)
    }

    private static func start(in directory: URL) async throws -> SoundServer {
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
        return SoundServer(directory: directory, daemon: daemon)
    }

    /// Plays `seconds` of a sine at `frequency` Hz and `amplitude` (0…1) into `sink`, in the background.
    public func playTone(
        frequency: Double, amplitude: Float, seconds: Double, into sink: String = "cast_test"
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
                "--channels=2", "--latency-msec=250", "--raw", file.path,
            ])
    }

    /// Runs `body` with a server that is stopped afterwards.
    public static func with<Result>(_ body: (SoundServer) async throws -> Result) async throws -> Result {
        let server = try await Self.start()
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Stops the daemon and removes its directory.
    public func stop() async {
        await self.daemon.stop()
        try? FileManager.default.removeItem(at: self.directory)
    }
}
