import CastCapture
import CastKit
import CastTray
import Foundation
import NIOConcurrencyHelpers

/// One `cast screen --capture` or `cast audio --capture` that `cast tray`
/// runs for a menu item, as a child process: the tray stays responsive and
/// alive whatever the stream meets, and the stream is the one the commands
/// test. Ctrl-C (SIGINT) stops it cleanly, as it does in a terminal.
final class CastingProcess: Sendable {
    /// What happened to the stream.
    enum Event: Sendable {
        /// It streams (the command said "mirroring …" or "sending …").
        case started
        /// It ended: its exit status, and its last line when that explains a failure.
        case ended(status: Int32, reason: String?)
    }

    let casting: TrayCasting
    private let process: Process

    private init(casting: TrayCasting, process: Process) {
        self.casting = casting
        self.process = process
    }

    /// Starts streaming `kind` to `device`; `events` hears of the start and the end (on another thread).
    static func start(
        _ kind: TrayCasting.Kind, to device: CastDevice, display: String?, verbose: Bool,
        events: @escaping @Sendable (Event) -> Void
    ) throws -> CastingProcess {
        let address = Self.address(of: device)
        var arguments: [String]
        switch kind {
        case .screen:
            // Wayland has no screen to read: the portal asks which (the desktop's own chooser).
            let source = CaptureSource.forCurrentSession(environment: ProcessInfo.processInfo.environment)
            arguments = ["screen", "--capture", source == .portal ? "portal" : "screen"]
            if source == .screen, let display { arguments += ["--display", display] }
        case .window:
            arguments = ["screen", "--capture", "portal"]
        case .sound:
            arguments = ["audio", "--capture"]
        }
        arguments += ["--device", address]
        if verbose { arguments.append("--verbose") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let lines = LineReader()
        errors.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            guard !data.isEmpty else {
                handle.readabilityHandler = nil
                return
            }
            for line in lines.append(data) {
                FileHandle.standardError.write(Data("  \(line)\n".utf8))
                if lines.markStartedIfFirst(line) { events(.started) }
            }
        }
        process.terminationHandler = { process in
            errors.fileHandleForReading.readabilityHandler = nil
            let rest = errors.fileHandleForReading.readDataToEndOfFile()
            let tail = lines.append(rest) + lines.flush()
            for line in tail { FileHandle.standardError.write(Data("  \(line)\n".utf8)) }
            let status = process.terminationStatus
            events(.ended(status: status, reason: status == 0 ? nil : lines.lastError))
        }
        try process.run()
        return CastingProcess(
            casting: TrayCasting(kind: kind, deviceName: device.friendlyName, isStarted: false), process: process)
    }

    /// Asks the stream to stop, as Ctrl-C does: it ends its session cleanly.
    func stop() {
        guard self.process.isRunning else { return }
        kill(self.process.processIdentifier, SIGINT)
    }

    /// The device's `--device` argument: its first IPv4 address (else IPv6) and port.
    static func address(of device: CastDevice) -> String {
        let v4 = device.addresses.first { if case .v4 = $0 { true } else { false } }
        guard let address = v4 ?? device.addresses.first else { return device.id }
        return v4 != nil ? "\(address):\(device.port)" : "[\(address)]:\(device.port)"
    }
}

/// The child's standard error as lines: whether it said it started, and its last error.
private final class LineReader: Sendable {
    private struct State {
        var pending = Data()
        var started = false
        var lastError: String?
    }

    private let state = NIOLockedValueBox(State())

    /// The complete lines `data` finishes.
    func append(_ data: Data) -> [String] {
        self.state.withLockedValue { state in
            state.pending.append(data)
            var lines: [String] = []
            while let newline = state.pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: state.pending[state.pending.startIndex..<newline], as: UTF8.self)
                state.pending.removeSubrange(state.pending.startIndex...newline)
                lines.append(line)
                if line.hasPrefix("error: ") { state.lastError = String(line.dropFirst("error: ".count)) }
            }
            return lines
        }
    }

    /// The last line, unfinished.
    func flush() -> [String] {
        self.state.withLockedValue { state in
            defer { state.pending = Data() }
            return state.pending.isEmpty ? [] : [String(decoding: state.pending, as: UTF8.self)]
        }
    }

    /// Whether `line` is the first that says the stream runs (`cast screen`'s
    /// "mirroring …", `cast audio`'s "sending …").
    func markStartedIfFirst(_ line: String) -> Bool {
        self.state.withLockedValue { state in
            guard !state.started, line.hasPrefix("mirroring ") || line.hasPrefix("sending ") else { return false }
            state.started = true
            return true
        }
    }

    var lastError: String? { self.state.withLockedValue { $0.lastError } }
}
