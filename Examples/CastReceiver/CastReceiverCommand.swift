import ArgumentParser
import CastCommon
import CastEmulator
import CastKit
import Foundation

/// `cast-receiver`: the receiver emulator, standalone, so other senders
/// (pychromecast included) can be tested against it.
///
/// It listens on 127.0.0.1 unless told otherwise, logs what senders send,
/// and with `--advertise` answers mDNS on the chosen interfaces (loopback by
/// default: on a shared machine multicast belongs there or in a namespace).
@main
struct CastReceiverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cast-receiver",
        abstract: "Run the Cast receiver emulator: apps, media player and Remote Display receiver.",
        version: CastFramework.version)

    @Option(help: "The friendly name.") var name = "Cast Emulator"
    @Option(help: "The device id to advertise (32 hex digits; default: derived from the name).") var id: String?
    @Option(help: "The kind of receiver to behave like (see --list-profiles).") var profile = "chromecast-google-tv"
    @Flag(help: "List the receiver profiles and exit.") var listProfiles = false
    @Option(help: "The model name to advertise (default: the profile's).") var model: String?
    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(help: "The TLS port (0 picks a free one).") var port = 8009
    @Flag(help: "Answer mDNS queries (see --interface).") var advertise = false
    @Option(name: .customLong("interface"), help: "Advertise on this interface (repeatable; default: loopback).")
    var interfaces: [String] = []
    @Option(help: "Remote Display: drop this share of datagrams (0 to 1).") var loss: Double = 0
    @Option(help: "Remote Display: extra one-way delay, milliseconds.") var delay: Int = 0
    @Option(help: "Remote Display: jitter, milliseconds.") var jitter: Int = 0
    @Option(help: "Remote Display: bandwidth cap, bits per second.") var bandwidth: Int?
    @Flag(
        inversion: .prefixedNo,
        help: "Remote Display: decode what arrives (latency, PSNR); without, only reassemble and acknowledge.")
    var decode = true
    @Flag(help: "Fetch the media a LOAD names, as a receiver does, and fail it when it cannot be fetched or played.")
    var fetchMedia = false
    @Option(
        name: .customLong("setup-ports"),
        help: ArgumentHelp(
            "Also serve the device's setup server (/setup/eureka_info, the icon) on these ports, HTTPS then HTTP; real devices use 8443,8008.",
            valueName: "HTTPS,HTTP"))
    var setupPorts: String?
    @Option(
        help: ArgumentHelp(
            "Run this many devices in one process, named NAME 1…N on PORT and the ports after it (0: free ports); prints their ports as one JSON line and takes commands on standard input (volume, quit).",
            valueName: "N"))
    var devices = 1
    @Option(help: "Seconds to run (default: until Ctrl-C).") var seconds: Double?
    @Flag(name: .shortAndLong, help: "Log the emulator's own debug records too.") var verbose = false

    func validate() throws {
        guard self.listProfiles || ReceiverProfile.named(self.profile) != nil else {
            throw ValidationError(
                "unknown profile \(self.profile); one of: \(ReceiverProfile.all.map(\.name).joined(separator: ", "))")
        }
        guard (0...1).contains(self.loss) else { throw ValidationError("--loss must be between 0 and 1") }
        guard (0...65_535).contains(self.port) else { throw ValidationError("--port must be 0…65535") }
        if let id, id.count != 32 || !id.allSatisfy(\.isHexDigit) {
            throw ValidationError("--id must be 32 hex digits")
        }
        guard (1...10_000).contains(self.devices) else { throw ValidationError("--devices must be 1…10000") }
        if self.devices > 1, self.port != 0, self.port + self.devices - 1 > 65_535 {
            throw ValidationError(
                "--port \(self.port) leaves no room for \(self.devices) devices; use a lower port or 0")
        }
        if self.setupPorts != nil, self.parsedSetupPorts == nil {
            throw ValidationError("--setup-ports needs two ports such as 8443,8008")
        }
    }

    /// --setup-ports as two port numbers.
    private var parsedSetupPorts: (secure: Int, plain: Int)? {
        let ports = (self.setupPorts ?? "").split(separator: ",").compactMap { Int($0) }
        guard ports.count == 2, ports.allSatisfy({ (0...65_535).contains($0) }) else { return nil }
        return (ports[0], ports[1])
    }

    func run() async throws {
        if self.listProfiles {
            for profile in ReceiverProfile.all { Self.say("\(profile.name)\t\(profile.summary)") }
            return
        }
        guard let profile = ReceiverProfile.named(self.profile) else { return }
        let logger = CastLogger(
            filter: CastLogFilter(minimumLevel: self.verbose ? .debug : self.devices > 1 ? .warning : .info))
        logger.addSink(ClosureLogSink { FileHandle.standardError.write(Data("\($0)\n".utf8)) })
        if self.devices > 1 {
            try await self.runFleet(profile: profile, logger: logger)
            return
        }
        let emulator = try self.makeEmulator(profile: profile, logger: logger)
        let events = emulator.events()
        try await emulator.start()
        Self.say("cast-receiver \"\(self.name)\" (\(profile.name)) listening on \(self.host):\(emulator.port)")
        try await self.startSetupServer(of: emulator)
        let responder = self.advertise ? try await self.startAdvertising(emulator, profile: profile) : nil
        let logging = Task { await Self.printEvents(events, of: emulator) }
        if let seconds {
            try await Task.sleep(for: .milliseconds(Int(seconds * 1_000)))
            logging.cancel()
        }
        await logging.value
        await responder?.stop()
        await emulator.stop()
    }

    /// The one emulator, with the profile and the Remote Display impairment and decoding the options give.
    private func makeEmulator(profile: ReceiverProfile, logger: CastLogger) throws -> CastEmulator {
        let emulator = try CastEmulator(
            configuration: CastEmulatorConfiguration(
                host: self.host, port: self.port, name: self.name, profile: profile, fetchesMedia: self.fetchMedia),
            logger: logger)
        emulator.streaming.impairment = NetworkImpairment(
            lossRate: self.loss, delay: .milliseconds(self.delay), jitter: .milliseconds(self.jitter),
            bandwidthLimit: self.bandwidth)
        emulator.streaming.decodes = self.decode
        return emulator
    }

    /// `--setup-ports`: starts `emulator`'s setup server and says where it listens; nothing without the option.
    private func startSetupServer(of emulator: CastEmulator) async throws {
        guard let ports = self.parsedSetupPorts else { return }
        try await emulator.startSetupServer(securePort: ports.secure, port: ports.plain)
        if let bound = emulator.setupPorts {
            Self.say("setup server on \(self.host): HTTPS \(bound.secure), HTTP \(bound.plain)")
        }
    }

    /// `--advertise`: answers mDNS for `emulator` on the chosen interfaces, with the id and model
    /// the options or the profile give, and says so; returns the running responder.
    private func startAdvertising(_ emulator: CastEmulator, profile: ReceiverProfile) async throws -> MDNSResponder {
        var advertisement = emulator.advertisement
        if let id { advertisement.id = id }
        advertisement.modelName = self.model ?? profile.modelName
        advertisement.capabilities = profile.capabilities
        let advertiser = emulator.makeResponder(
            interfaces: self.interfaces.isEmpty ? .loopbackOnly : .named(Set(self.interfaces)))
        await advertiser.update(advertisement)
        try await advertiser.start()
        Self.say(
            "advertising \(advertisement.id) on \(self.interfaces.isEmpty ? "loopback" : self.interfaces.joined(separator: ", "))"
        )
        return advertiser
    }

    /// Prints each of `emulator`'s `events`, and the measurements of each Remote Display stream
    /// when it ends, until the events end or the task is cancelled.
    private static func printEvents(_ events: AsyncStream<EmulatorEvent>, of emulator: CastEmulator) async {
        var reported: StreamingReport?
        for await event in events {
            Self.say(Self.line(for: event))
            // A stream ends when its app stops or its sender leaves: say what it measured, once.
            switch event {
            case .streamingEnded, .connectionClosed:
                if let report = emulator.streamingReport, report != reported {
                    reported = report
                    Self.say("\(report)")
                }
            default:
                break
            }
        }
    }

    /// `--devices N`: the fleet, quiet but for its ready line and its answers to commands.
    private func runFleet(profile: ReceiverProfile, logger: CastLogger) async throws {
        let fleet = try await EmulatorFleet.start(
            count: self.devices, name: self.name, host: self.host, firstPort: self.port, profile: profile,
            advertisingOn: self.advertise
                ? (self.interfaces.isEmpty ? .loopbackOnly : .named(Set(self.interfaces))) : nil,
            logger: logger)
        Self.say(fleet.readyLine(host: self.host))
        let commands = Task { await fleet.serveCommands(say: Self.say) }
        if let seconds {
            let deadline = Task {
                try? await Task.sleep(for: .milliseconds(Int(seconds * 1_000)))
                commands.cancel()
            }
            await commands.value
            deadline.cancel()
        } else {
            await commands.value
        }
        await fleet.stop()
    }

    /// Writes one line to stdout at once (a pipe would otherwise hold it until exit).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// One emulator event as a log line on stdout.
    static func line(for event: EmulatorEvent) -> String {
        switch event {
        case .connectionOpened(let id): "[\(id)] sender connected"
        case .connectionClosed(let id): "[\(id)] sender disconnected"
        case .virtualConnectionOpened(let id, let source, let destination, _):
            "[\(id)] CONNECT \(source) → \(destination)"
        case .virtualConnectionClosed(let id, let source, let destination): "[\(id)] CLOSE \(source) → \(destination)"
        case .messageReceived(let id, let message):
            "[\(id)] \(message.namespace) \(message.sourceID) → \(message.destinationID): \(Self.text(of: message))"
        case .messageDropped(let id, let message):
            "[\(id)] dropped (no virtual connection) \(message.namespace) from \(message.sourceID)"
        case .deviceAuthChallengeReceived(let id): "[\(id)] device authentication challenge"
        case .streamingEnded: "Remote Display stream ended"
        }
    }

    private static func text(of message: CastMessage) -> String {
        switch message.payload {
        case .string(let text): text
        case .binary(let bytes): "\(bytes.count) bytes"
        }
    }
}
