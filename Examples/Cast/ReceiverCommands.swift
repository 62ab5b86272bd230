import ArgumentParser
import CastKit

/// `cast status`: the receiver's apps and volume, and the media status when media plays.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Show the running app, the volume and the media status.")

    @OptionGroup var options: DeviceOptions

    func run() async throws {
        try await self.reportingFailures {
            try await ReceiverLink.with(self.options) { link in
                let status = try await link.receiver.requestStatus()
                var json = status.json
                var text = status.text
                if let application = status.applications.first(where: { $0.namespaces.contains(CastNamespace.media) }) {
                    let media = RemoteMediaClient(requestTimeout: self.options.timeoutDuration)
                    try await link.link.join(application, attaching: [media])
                    if let mediaStatus = try await media.requestStatus() {
                        json = .object((json.objectValue ?? [:]).merging(["mediaStatus": mediaStatus.json]) { $1 })
                        text += "\nmedia \(mediaStatus.text)"
                    }
                }
                try Output.result(json: json, text: text, asJSON: self.options.json)
            }
        }
    }
}

/// `cast launch APPID`: starts a receiver app (or joins it when it already runs).
struct LaunchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "launch", abstract: "Launch a receiver app by its id (CC1AD845 is the Default Media Receiver).")

    @Argument(help: "The app id.") var appID: String
    @OptionGroup var options: DeviceOptions

    func run() async throws {
        try await self.reportingFailures {
            let application = try await ReceiverLink.with(self.options) { link in
                try await link.application(self.appID, attaching: [])
            }
            try Output.result(
                json: [
                    "appId": .string(application.appID), "displayName": .string(application.displayName),
                    "sessionId": application.sessionID.map(JSONValue.string) ?? .null,
                ],
                text: "\(application.displayName) running, session \(application.sessionID ?? "-")",
                asJSON: self.options.json)
        }
    }
}

/// `cast stop-app`: stops the running app by its session id.
struct StopApplicationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop-app", abstract: "Stop the app running on the receiver.")

    @OptionGroup var options: DeviceOptions

    func run() async throws {
        try await self.reportingFailures {
            let (running, after) = try await ReceiverLink.with(self.options) { link in
                let status = try await link.receiver.requestStatus()
                guard let running = status.runningApplication, let sessionID = running.sessionID else {
                    throw CastChannelError(.noApplication, "no app is running on the receiver")
                }
                return (running, try await link.receiver.stop(sessionID: sessionID))
            }
            try Output.result(
                json: after.json, text: "stopped \(running.displayName)\n\(after.text)",
                asJSON: self.options.json)
        }
    }
}

/// `cast volume LEVEL`: the receiver's volume, 0…1.
struct VolumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "volume", abstract: "Set the receiver's volume (0 to 1).")

    // Checked as it is read, so `cast volume 7` says what is wrong even before a missing --device.
    @Argument(
        help: "The level, 0 to 1.",
        transform: { text in
            guard let level = Double(text), (0...1).contains(level) else {
                throw ValidationError("volume must be between 0 and 1, not \(text)")
            }
            return level
        })
    var level: Double
    @OptionGroup var options: DeviceOptions

    func run() async throws {
        try await self.reportingFailures {
            let status = try await ReceiverLink.with(self.options) { try await $0.receiver.setVolume(self.level) }
            try Output.result(json: status.json, text: status.text, asJSON: self.options.json)
        }
    }
}

/// `cast mute [--off]`: mutes or unmutes the receiver.
struct MuteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "mute", abstract: "Mute the receiver (--off unmutes).")

    @Flag(help: "Unmute instead.") var off = false
    @OptionGroup var options: DeviceOptions

    func run() async throws {
        try await self.reportingFailures {
            let status = try await ReceiverLink.with(self.options) { try await $0.receiver.setMuted(!self.off) }
            try Output.result(json: status.json, text: status.text, asJSON: self.options.json)
        }
    }
}
