import ArgumentParser
import CastKit
import CastSpeakers
import Foundation

/// `cast speakers`: every Cast speaker, group and TV as one of this
/// computer's sound outputs (``CastSpeakers``), until Ctrl-C.
struct SpeakersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "speakers",
        abstract: "Cast speakers, speaker groups and TVs as this computer's sound outputs, until Ctrl-C.",
        discussion: """
            Each device discovery finds gets a sink in the sound server (PulseAudio, or PipeWire's pulse server) \
            named after it, listed by the desktop's sound settings beside the computer's own outputs. Sound played \
            into a sink goes to its device over Cast Streaming, --delay behind (on PipeWire the sink reports that \
            delay, so video players keep their pictures in step); after --grace seconds of silence the device is \
            let go. The sinks are removed when the command ends. A sink never \
            becomes the default output by itself where the desktop has another; pick it in the sound settings.

            A group's sink (--group) plays to every member in step. Its volume scales the sound all members \
            receive; each member's own volume stays as set on the device (its buttons, a phone). A member no \
            device matches is named once, ten seconds after the group's sink appears.

            Where stderr is a file or a pipe, each line starts with the time.

            The settings file (--config; by default $XDG_CONFIG_HOME/cast/speakers.conf) holds these options as \
            lines of OPTION = VALUE (only, group, audio-server, grace, bitrate, delay); an option given on the \
            command line replaces the file's. SIGHUP (systemctl --user reload cast-speakers) reads the file again \
            and applies it without removing the sinks it keeps; a file that does not parse is reported and the \
            settings stay as they were.
            """)

    @OptionGroup var devices: KnownHostOptions
    @Option(
        name: .customLong("only"),
        help: ArgumentHelp("Only the device with this name or id (repeat for more; default: every device with sound).")
    )
    var only: [String] = []
    @Option(
        name: .customLong("group"),
        help: ArgumentHelp(
            "A sink that plays to several devices at once, in step: NAME=DEVICE,DEVICE,… (names or ids; repeat).",
            valueName: "group"))
    var groups: [String] = []
    @Option(help: "The sound server (default: libpulse's choice, e.g. the user's PipeWire or PulseAudio).")
    var audioServer: String?
    @Option(help: "Seconds of silence after which a device is let go (default 15).") var grace: Double?
    @Option(help: "Opus bitrate, kbit/s (default 128).") var bitrate: Int?
    @Option(help: "Target playout delay, milliseconds (default 400).") var delay: Int?
    @Option(help: ArgumentHelp("The settings file (default: $XDG_CONFIG_HOME/cast/speakers.conf).", valueName: "file"))
    var config: String?
    @Flag(help: "Write a systemd user unit that runs cast speakers with these options at login, then leave.")
    var installService = false
    @Flag(help: "Remove the systemd user unit --install-service wrote, then leave.") var uninstallService = false
    @OptionGroup(title: "Discovery") var discovery: DiscoveryOptions
    @Flag(name: .shortAndLong, help: "Log what the SDK does (to stderr).") var verbose = false

    func validate() throws {
        guard !(self.installService && self.uninstallService) else {
            throw ValidationError("--install-service and --uninstall-service exclude each other")
        }
        for group in self.groups {
            do {
                _ = try CastSpeakersFile.group(group)
            } catch {
                throw ValidationError("--group takes NAME=DEVICE,DEVICE,…, not \(group)")
            }
        }
        if let grace = self.grace, !(1...3_600).contains(grace) {
            throw ValidationError("--grace must be 1…3600 seconds")
        }
        if let bitrate = self.bitrate, !(6...510).contains(bitrate) {
            throw ValidationError("--bitrate must be 6…510 kbit/s")
        }
        if let delay = self.delay, !(1...5_000).contains(delay) { throw ValidationError("--delay must be 1…5000 ms") }
    }

    /// The settings file's location.
    var settingsFile: URL { self.config.map { URL(fileURLWithPath: $0) } ?? CastSpeakersFile.defaultLocation }

    /// The configuration: the command line's options, then the file's, then the defaults.
    func configuration(file: CastSpeakersFile) throws -> CastSpeakersConfiguration {
        var options = CastSpeakersFile()
        options.only = self.only
        options.groups = try self.groups.map { try CastSpeakersFile.group($0) }
        options.soundServer = self.audioServer
        options.gracePeriod = self.grace.map { .milliseconds(Int(($0 * 1_000).rounded())) }
        options.bitrate = self.bitrate.map { $0 * 1_000 }
        options.targetDelay = self.delay.map { .milliseconds($0) }
        return CastSpeakersConfiguration(
            settings: file.overridden(by: options),
            connection: CastConnectionConfiguration(deviceAuthentication: try self.devices.trust.policy()))
    }

    func run() async throws {
        try await self.reportingFailures {
            if try self.managedTheService() { return }
            let logger = DeviceOptions.makeLogger(verbose: self.verbose)
            // Caught before anything starts, so a reload sent early is not the default action (the end).
            let reloads = ReloadSignal()
            // Without a sound server at the start, the command ends (exit code 10); once
            // running, it waits for one that went away to come back.
            let speakers = try CastSpeakers(
                configuration: try self.configuration(file: CastSpeakersFile(contentsOf: self.settingsFile)),
                logger: logger)
            var configuration = self.discovery.configuration
            self.devices.restrict(&configuration)
            let discovery = DiscoveryManager(configuration: configuration, logger: logger)
            try await discovery.start()
            await self.devices.add(to: discovery)
            let supervisor = SpeakersSupervisor(speakers, logger: logger)
            let supervising = Task {
                Output.logLine("cast speakers: a sound output for each Cast device found; Ctrl-C ends")
                SystemdNotification.send("READY=1\nSTATUS=making a sound output for each Cast device found")
                try await supervisor.run(following: discovery) { event in
                    switch event {
                    case .speakers: Output.logLine("\(event)")
                    case .soundServerLost:
                        Output.logLine("\(event) (Ctrl-C ends)")
                        SystemdNotification.send("STATUS=waiting for the sound server to come back")
                    case .soundServerBack:
                        Output.logLine("\(event)")
                        SystemdNotification.send("STATUS=making a sound output for each Cast device found")
                    }
                }
                Output.logLine("the sinks are removed")
            }
            let reloading = Task { await self.reload(supervisor, on: reloads) }
            let interruption = Interruption.install(alsoOnTerminate: true) {
                SystemdNotification.send("STOPPING=1")
                supervising.cancel()
            }
            let result = await supervising.result
            reloading.cancel()
            withExtendedLifetime(interruption) {}
            await discovery.stop()
            try result.get()
        }
    }

    /// `--install-service` or `--uninstall-service` done and said; whether either was asked.
    private func managedTheService() throws -> Bool {
        if self.installService {
            // The service runs this command as given, less this flag.
            let arguments = CommandLine.arguments.dropFirst().filter { $0 != "--install-service" }
            let file = try SpeakersService.install(arguments: Array(arguments))
            Output.progress(
                "wrote \(file.path); start it with: systemctl --user daemon-reload && "
                    + "systemctl --user enable --now \(SpeakersService.unitName)")
            return true
        }
        guard self.uninstallService else { return false }
        let removed = try SpeakersService.uninstall()
        Output.progress(
            removed
                ? "removed \(SpeakersService.unitFile.path); stop it with: systemctl --user disable --now "
                    + SpeakersService.unitName
                : "no unit at \(SpeakersService.unitFile.path)")
        return true
    }

    /// Reads the settings file again at each SIGHUP and applies it to the
    /// speakers running then; one that does not parse, or would change the
    /// sound server, is reported and changes nothing.
    func reload(_ supervisor: SpeakersSupervisor, on reloads: ReloadSignal) async {
        for await _ in reloads.signals {
            SystemdNotification.send("RELOADING=1")
            let speakers = supervisor.speakers
            do {
                try await speakers.reconfigure(
                    try self.configuration(file: CastSpeakersFile(contentsOf: self.settingsFile)))
                Output.logLine("reloaded \(self.settingsFile.path): sinks \(speakers.sinkNames)")
            } catch {
                Output.logLine("kept the settings: \(error)")
            }
            SystemdNotification.send("READY=1")
        }
    }
}
