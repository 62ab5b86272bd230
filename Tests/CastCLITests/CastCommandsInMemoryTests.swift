import ArgumentParser
import CastEmulator
import CastKit
import CastTestSupport
import Testing

@testable import cast

/// The `cast` commands' logic run in this process against an emulator
/// reached in memory (`ReceiverLink.connectionFactory`), their output
/// captured (`Output.captured`): no socket, no TLS, no process, no
/// real-time turn. `CastCommandLineTests` runs the built executable over
/// TLS for what only a process shows (exit codes as a shell sees them,
/// Ctrl-C, files, display servers).
@Suite(.timeLimit(.minutes(2))) struct CastCommandsInMemoryTests {
    /// What a command printed and how it ended.
    struct Ran {
        /// 0, or the `ExitCode` it ended with.
        let status: Int32
        let standardOutput: String
        let standardError: String

        /// stdout parsed as JSON.
        func json() throws -> JSONValue { try JSONValue(parsing: self.standardOutput) }
    }

    /// The `--device` the commands are given: nothing listens there, so
    /// only the in-memory connection reaches the emulator.
    static let nowhere = "127.0.0.1:1"

    /// Runs `cast ARGUMENTS` in this process, its connections reaching `emulator` in memory.
    static func cast(_ arguments: [String], on emulator: CastEmulator) async throws -> Ran {
        let captured = Output.Captured()
        var status: Int32 = 0
        let factory = CastConnectionFactory { _, _, configuration, logger in
            var configuration = configuration
            configuration.deviceAuthentication = .off
            return emulator.inMemoryConnection(configuration: configuration, logger: logger)
        }
        await Output.$captured.withValue(captured) {
            await ReceiverLink.$connectionFactory.withValue(factory) {
                do {
                    var command = try CastCommand.parseAsRoot(arguments)
                    if var command = command as? any AsyncParsableCommand {
                        try await command.run()
                    } else {
                        try command.run()
                    }
                } catch {
                    // As the tool's entry point ends: a usage error is 64 with its message.
                    status = CastCommand.exitCode(for: error).rawValue
                    if !(error is ExitCode) { Output.progress(CastCommand.fullMessage(for: error)) }
                }
            }
        }
        return Ran(
            status: status, standardOutput: captured.standardOutput.joined(separator: "\n"),
            standardError: captured.standardError.joined(separator: "\n"))
    }

    /// Runs `body` with a started emulator that has `applications`.
    static func withEmulator(
        applications: [EmulatedApplication] = EmulatedApplication.standard, _ body: (CastEmulator) async throws -> Void
    ) async throws {
        let emulator = try CastEmulator(
            configuration: CastEmulatorConfiguration(applications: applications), logger: CastCommandLineTests.quiet)
        try await emulator.start()
        do {
            try await body(emulator)
        } catch {
            await emulator.stop()
            throw error
        }
        await emulator.stop()
    }

    /// Before in CastCommandLineTests, as processes over TLS; the same checks.
    @Test func statusLaunchVolumeAndStopAppPrintJSON() async throws {
        try await Self.withEmulator { emulator in
            let device = ["--device", Self.nowhere, "--json"]
            let status = try await Self.cast(["status"] + device, on: emulator)
            #expect(status.status == 0, "\(status.standardError)")
            #expect(try status.json()["volume"]?["level"] == 1)

            let launch = try await Self.cast(["launch", "CC1AD845"] + device, on: emulator)
            #expect(launch.status == 0, "\(launch.standardError)")
            let running = try #require(emulator.runningApplication)
            #expect(running.application.appID == CastApplicationID.defaultMediaReceiver)
            #expect(try launch.json()["sessionId"] == .string(running.sessionID))
            #expect(launch.standardError.contains("launching CC1AD845"))

            let volume = try await Self.cast(["volume", "0.3"] + device, on: emulator)
            #expect(try volume.json()["volume"]?["level"] == 0.3)
            let mute = try await Self.cast(["mute"] + device, on: emulator)
            #expect(try mute.json()["volume"]?["muted"] == true)
            #expect(emulator.volume == ReceiverVolume(level: 0.3, isMuted: true))

            let stop = try await Self.cast(["stop-app"] + device, on: emulator)
            #expect(stop.status == 0, "\(stop.standardError)")
            #expect(emulator.runningApplication?.application.appID != CastApplicationID.defaultMediaReceiver)
        }
    }

    /// Before in CastCommandLineTests, as processes over TLS; the same checks.
    @Test func playPauseSeekAndStopControlTheEmulatorsPlayer() async throws {
        try await Self.withEmulator { emulator in
            let device = ["--device", Self.nowhere, "--json"]
            let play = try await Self.cast(
                ["play", "https://media.example/bbb.mp4", "--title", "Big Buck Bunny"] + device, on: emulator)
            #expect(play.status == 0, "\(play.standardError)")
            let playing = try play.json()
            #expect(playing["media"]?["contentId"] == "https://media.example/bbb.mp4")
            #expect(playing["media"]?["contentType"] == "video/mp4")

            let pause = try await Self.cast(["pause"] + device, on: emulator)
            #expect(try pause.json()["playerState"] == "PAUSED")
            let seek = try await Self.cast(["seek", "42"] + device, on: emulator)
            #expect(abs((try seek.json()["currentTime"]?.doubleValue ?? 0) - 42) < 0.5)
            let resume = try await Self.cast(["resume"] + device, on: emulator)
            #expect(try resume.json()["playerState"] == "PLAYING")
            let status = try await Self.cast(["status"] + device, on: emulator)
            #expect(try status.json()["mediaStatus"]?["media"]?["contentId"] == "https://media.example/bbb.mp4")
            let stop = try await Self.cast(["stop"] + device, on: emulator)
            #expect(try stop.json()["playerState"] == "IDLE")
        }
    }

    /// A failure is the typed error's exit code, its line on stderr and, with
    /// `--json`, its JSON on stdout.
    @Test func anAppTheReceiverDoesNotHaveIsALaunchFailureWithItsCode() async throws {
        try await Self.withEmulator { emulator in
            let launch = try await Self.cast(
                ["launch", "0BADC0DE", "--device", Self.nowhere, "--json"], on: emulator)
            #expect(launch.status != 0)
            #expect(launch.standardError.hasPrefix("connecting to 127.0.0.1:1"), "\(launch.standardError)")
            #expect(launch.standardError.contains("error: "), "\(launch.standardError)")
            let failure = try launch.json()
            #expect(failure["error"]?["exitCode"] == .integer(Int(launch.status)), "\(launch.standardOutput)")
            #expect(failure["error"]?["code"] == "launchFailed", "\(launch.standardOutput)")
            #expect(emulator.runningApplication?.application.appID != "0BADC0DE")
        }
    }

    /// Before in CastCommandLineTests, as processes over TLS; the same checks.
    @Test func queueNextPreviousRateTracksAndStyle() async throws {
        try await Self.withEmulator { emulator in
            let device = ["--device", Self.nowhere, "--json"]
            let queue = try await Self.cast(
                ["queue", "https://media.example/one.mp4", "https://media.example/two.mp3", "--repeat-mode", "all"]
                    + device, on: emulator)
            #expect(queue.status == 0, "\(queue.standardError)")
            #expect(try queue.json()["media"]?["contentId"] == "https://media.example/one.mp4")
            let next = try await Self.cast(["next"] + device, on: emulator)
            #expect(try next.json()["media"]?["contentId"] == "https://media.example/two.mp3")
            #expect(try next.json()["media"]?["contentType"] == "audio/mpeg")
            let previous = try await Self.cast(["prev"] + device, on: emulator)
            #expect(try previous.json()["media"]?["contentId"] == "https://media.example/one.mp4")
            let rate = try await Self.cast(["rate", "1.5"] + device, on: emulator)
            #expect(try rate.json()["playbackRate"] == 1.5)

            let subtitled = try await Self.cast(
                ["play", "https://media.example/film.mp4", "--subtitles", "https://media.example/film.vtt"] + device,
                on: emulator)
            #expect(subtitled.status == 0, "\(subtitled.standardError)")
            let style = try await Self.cast(
                ["style", "--foreground", "#FFFF00", "--scale", "1.5"] + device, on: emulator)
            #expect(style.status == 0, "\(style.standardError)")
            let off = try await Self.cast(["tracks"] + device, on: emulator)
            #expect(off.status == 0, "\(off.standardError)")
            let badColour = try await Self.cast(
                ["style", "--foreground", "yellow", "--device", Self.nowhere], on: emulator)
            #expect(badColour.status == 64)
        }
    }

    /// Before in CastCommandLineTests, as a process over TLS; the same checks.
    @Test func messageSendsOnACustomNamespaceAndPrintsTheReplies() async throws {
        let namespace = "urn:x-cast:com.example.echo"
        let game = EmulatedApplication(appID: "5C3F0A3C", displayName: "Echo Game", namespaces: [namespace])
        try await Self.withEmulator(applications: EmulatedApplication.standard + [game]) { emulator in
            emulator.respond(to: namespace) { message in
                guard case .string(let text) = message.payload else { return [] }
                let reply = #"{"type":"ECHO","received":"# + text + "}"
                return [
                    CastMessage(
                        namespace: namespace, sourceID: message.destinationID, destinationID: message.sourceID,
                        payload: .string(reply))
                ]
            }
            let run = try await Self.cast(
                [
                    "message", "--namespace", namespace, "--payload", #"{"type":"PING","n":1}"#, "--app", "5C3F0A3C",
                    "--wait", "5", "--count", "1", "--device", Self.nowhere, "--json",
                ], on: emulator)
            #expect(run.status == 0, "\(run.standardError)")
            let replies = try #require(try run.json().arrayValue)
            #expect(replies.count == 1)
            #expect(replies.first?["type"] == "ECHO")
            #expect(replies.first?["received"]?["n"] == 1)
            #expect(run.standardError.contains("launching 5C3F0A3C"))
        }
    }
}
