import ArgumentParser
import CastKit
import CastSpeakers

/// `cast speakers`: every Cast speaker, group and TV as one of this
/// computer's sound outputs (``CastSpeakers``), until Ctrl-C.
struct SpeakersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "speakers",
        abstract: "Cast speakers, speaker groups and TVs as this computer's sound outputs, until Ctrl-C.",
        discussion: """
            Each device discovery finds gets a sink in the sound server (PulseAudio, or PipeWire's pulse server) \
            named after it, listed by the desktop's sound settings beside the computer's own outputs. Sound played \
            into a sink goes to its device over Cast Streaming, a few hundred milliseconds behind; after --grace \
            seconds of silence the device is let go. The sinks are removed when the command ends.
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
    @Option(help: "Seconds of silence after which a device is let go.") var grace: Double = 15
    @Option(help: "Opus bitrate, kbit/s.") var bitrate = 128
    @Option(help: "Target playout delay, milliseconds.") var delay = 400
    @Flag(help: "Write a systemd user unit that runs cast speakers with these options at login, then leave.")
    var installService = false
    @Flag(help: "Remove the systemd user unit --install-service wrote, then leave.") var uninstallService = false
    @OptionGroup(title: "Discovery") var discovery: DiscoveryOptions
    @Flag(name: .shortAndLong, help: "Log what the SDK does (to stderr).") var verbose = false

    func validate() throws {
        guard !(self.installService && self.uninstallService) else {
            throw ValidationError("--install-service and --uninstall-service exclude each other")
        }
        _ = try self.speakerGroups()
        guard (1...3_600).contains(self.grace) else { throw ValidationError("--grace must be 1…3600 seconds") }
        guard (6...510).contains(self.bitrate) else { throw ValidationError("--bitrate must be 6…510 kbit/s") }
        guard (1...5_000).contains(self.delay) else { throw ValidationError("--delay must be 1…5000 ms") }
    }

    /// `--group NAME=A,B` as groups.
    func speakerGroups() throws -> [CastSpeakersGroup] {
        try self.groups.map { text in
            let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
            let members = parts.count == 2 ? parts[1].split(separator: ",").map(String.init) : []
            guard parts.count == 2, !parts[0].isEmpty, !members.isEmpty else {
                throw ValidationError("--group takes NAME=DEVICE,DEVICE,…, not \(text)")
            }
            return CastSpeakersGroup(name: parts[0], members: members)
        }
    }

    func run() async throws {
        try await self.reportingFailures {
            if self.installService {
                // The service runs this command as given, less this flag.
                let arguments = CommandLine.arguments.dropFirst().filter { $0 != "--install-service" }
                let file = try SpeakersService.install(arguments: Array(arguments))
                Output.progress(
                    "wrote \(file.path); start it with: systemctl --user daemon-reload && "
                        + "systemctl --user enable --now \(SpeakersService.unitName)")
                return
            }
            if self.uninstallService {
                let removed = try SpeakersService.uninstall()
                Output.progress(
                    removed
                        ? "removed \(SpeakersService.unitFile.path); stop it with: systemctl --user disable --now "
                            + SpeakersService.unitName
                        : "no unit at \(SpeakersService.unitFile.path)")
                return
            }
            let logger = DeviceOptions.makeLogger(verbose: self.verbose)
            let only = Set(self.only.map { $0.lowercased() })
            let speakers = try CastSpeakers(
                configuration: CastSpeakersConfiguration(
                    soundServer: self.audioServer, gracePeriod: .milliseconds(Int(self.grace * 1_000)),
                    bitrate: self.bitrate * 1_000, targetDelay: .milliseconds(self.delay),
                    includes: { device in
                        // A device named with --device is wanted even before its records say it has sound.
                        (device.source == .knownHost || device.capabilities.contains(.audioOut))
                            && (only.isEmpty || only.contains(device.friendlyName.lowercased())
                                || only.contains(device.id.lowercased()))
                    },
                    groups: try self.speakerGroups()),
                logger: logger)
            var configuration = self.discovery.configuration
            self.devices.restrict(&configuration)
            let discovery = DiscoveryManager(configuration: configuration, logger: logger)
            let found = discovery.events()
            try await discovery.start()
            await self.devices.add(to: discovery)
            let events = speakers.events()
            let printing = Task {
                for await event in events { Output.progress("\(event)") }
            }
            let running = Task { try await speakers.run(following: found) }
            let interruption = Interruption.install(alsoOnTerminate: true) {
                SystemdNotification.send("STOPPING=1")
                running.cancel()
            }
            Output.progress("cast speakers: a sound output for each Cast device found; Ctrl-C ends")
            SystemdNotification.send("READY=1\nSTATUS=making a sound output for each Cast device found")
            let result = await running.result
            withExtendedLifetime(interruption) {}
            await discovery.stop()
            printing.cancel()
            try result.get()
            Output.progress("the sinks are removed")
        }
    }
}
