import CastTestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

/// `cast speakers` as a user runs it (unprivileged, against a real
/// PulseAudio daemon): the device named with `--device` becomes a sink
/// that `pactl` lists, and Ctrl-C removes it and exits cleanly. What
/// reaches a sink and how volume follows is CastSpeakersTests' part.
@Suite(.timeLimit(.minutes(3))) struct CastSpeakersCommandTests {
    @Test func aDeviceBecomesASinkUntilCtrlC() async throws {
        try await SoundServer.with { sound in
            try await CastCommandLineTests.withEmulator(takesTurn: CastPlayLocalTests.takesTurn) { _, device in
                let listed = NIOLockedValueBox(String?.none)
                let run = try await CastCommandLineTests.run(
                    CastCommandLineTests.executable("cast"),
                    [
                        "speakers", "--device", device, "--no-mdns", "--audio-server", sound.server, "--grace", "1",
                    ],
                    interruptAfter: .seconds(60),
                    interruptWhen: { stderr in
                        guard stderr.contains("added for") else { return false }
                        // While it runs: what the sound server lists, read by its own client.
                        let sinks = try? CommandOutput.waiting(
                            for: ["pactl", "--server=\(sound.server)", "list", "sinks", "short"])
                        listed.withLockedValue { $0 = sinks?.stdout ?? "" }
                        return true
                    })
                #expect(run.status == 0, "\(run.stderr)")
                let sinkName = "cast.127_0_0_1"
                #expect(run.stderr.contains("sink \(sinkName) added for 127.0.0.1"), "\(run.stderr)")
                // stderr is a pipe here, as in a log file: each line says when.
                let added = run.stderr.split(separator: "\n").first { $0.contains("added for") } ?? ""
                #expect(added.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\S* sink .*/) != nil, "\(added)")
                #expect(listed.withLockedValue { $0 }?.contains(sinkName) == true, "\(String(describing: listed))")
                #expect(run.stderr.contains("the sinks are removed"))
                let after = try CommandOutput.waiting(for: [
                    "pactl", "--server=\(sound.server)", "list", "sinks", "short",
                ])
                #expect(!after.stdout.contains("cast."), "\(after.stdout)")
            }
        }
    }

    @Test func noSoundServerAndBadArgumentsHaveTheirExitCodes() async throws {
        let missing = try await CastCommandLineTests.cast(
            "speakers", "--no-mdns", "--audio-server", "unix:/nonexistent/cast-test/native")
        #expect(missing.status == 10, "\(missing.stderr)")
        #expect(missing.stderr.contains("no sound server"), "\(missing.stderr)")
        let grace = try await CastCommandLineTests.cast("speakers", "--grace", "0")
        #expect(grace.status != 0)
        #expect(grace.stderr.contains("--grace must be 1…3600 seconds"), "\(grace.stderr)")
        let group = try await CastCommandLineTests.cast("speakers", "--group", "Both")
        #expect(group.status != 0)
        #expect(group.stderr.contains("--group takes NAME=DEVICE,DEVICE,…, not Both"), "\(group.stderr)")
    }
}

extension CastSpeakersCommandTests {
    /// The sound server restarts while `cast speakers` runs: it says so,
    /// waits, and makes the device's sink again on the new server; Ctrl-C
    /// still ends it cleanly.
    @Test func theSinksComeBackWhenTheSoundServerDoes() async throws {
        let first = try await SoundServer.start()
        let second = NIOLockedValueBox(SoundServer?.none)
        do {
            try await CastCommandLineTests.withEmulator(takesTurn: CastPlayLocalTests.takesTurn) { _, device in
                var command = [
                    CastCommandLineTests.executable("cast"), "speakers", "--device", device, "--no-mdns",
                    "--audio-server", first.server, "--config", "/nonexistent/speakers.conf",
                ]
                var environment: [String: String] = [:]
                if let user = CastCommandLineTests.user {
                    command = try user.command(command)
                    environment = user.environment
                }
                let speakers = try InteractiveProcess(command, environment: environment)
                let sink = "cast.127_0_0_1"
                let made = try await waitUntil(within: .seconds(20)) {
                    speakers.stderr.contains { $0.contains("sink \(sink) added") }
                }
                #expect(made, "\(speakers.stderr)")
                let restarted = try await first.restarted()
                second.withLockedValue { $0 = restarted }
                let back = try await waitUntil(within: .seconds(30)) {
                    speakers.stderr.contains { $0.contains("the sound server is back") }
                        && speakers.stderr.filter { $0.contains("sink \(sink) added") }.count == 2
                }
                #expect(back, "\(speakers.stderr)")
                #expect(
                    speakers.stderr.contains { $0.contains("the sound server went away") && $0.contains("waiting") },
                    "\(speakers.stderr)")
                let listed = try await CommandOutput.of([
                    "pactl", "--server=\(restarted.server)", "list", "sinks", "short",
                ])
                #expect(listed.stdout.contains(sink), "\(listed.stdout)")
                speakers.signal(SIGINT)
                #expect(try await speakers.exit(within: .seconds(20)) == 0, "\(speakers.stderr)")
                let after = try await CommandOutput.of([
                    "pactl", "--server=\(restarted.server)", "list", "sinks", "short",
                ])
                #expect(!after.stdout.contains("cast."), "\(after.stdout)")
            }
        } catch {
            await (second.withLockedValue { $0 } ?? first).stop()
            throw error
        }
        await (second.withLockedValue { $0 } ?? first).stop()
    }
}
