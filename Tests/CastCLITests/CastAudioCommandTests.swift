import CastEmulator
import CastKit
import CastTestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

/// `cast audio` against the emulator's Nest speaker: a WAV file and raw PCM
/// on stdin arrive as a 1 kHz tone; a device without either mirroring app is
/// a launch failure.
@Suite(.timeLimit(.minutes(10)), .serialized) struct CastAudioCommandTests {
    /// A started emulator of `profile`, its `--device` argument and what it decodes, in its turn.
    static func withSpeaker(
        _ profile: ReceiverProfile = .nestSpeaker, _ body: (CastEmulator, String, DecodedTone) async throws -> Void
    ) async throws {
        try await RealTimeTurns.take(.childProcesses) {
            let emulator = try CastEmulator(
                configuration: CastEmulatorConfiguration(profile: profile), logger: CastCommandLineTests.quiet)
            try await emulator.start()
            let tone = DecodedTone(from: emulator)
            do {
                try await body(emulator, "127.0.0.1:\(emulator.port)", tone)
            } catch {
                await emulator.stop()
                throw error
            }
            await emulator.stop()
        }
    }

    /// `seconds` of a 1 kHz sine at half scale, 16-bit stereo at 48 kHz, little-endian.
    static func tonePCM(seconds: Double) -> [UInt8] {
        var bytes: [UInt8] = []
        for index in 0..<Int(seconds * 48_000) {
            let value = Int16(0.5 * 32_767 * sin(2 * Double.pi * 1_000 * Double(index) / 48_000))
            let le = UInt16(bitPattern: value).littleEndian
            bytes += [UInt8(le & 0xff), UInt8(le >> 8), UInt8(le & 0xff), UInt8(le >> 8)]
        }
        return bytes
    }

    /// The PCM in a WAV file.
    static func toneWAV(seconds: Double) -> [UInt8] {
        let pcm = Self.tonePCM(seconds: seconds)
        func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xff) } }
        func le16(_ value: Int) -> [UInt8] { (0..<2).map { UInt8((value >> (8 * $0)) & 0xff) } }
        return Array("RIFF".utf8) + le32(36 + pcm.count) + Array("WAVEfmt ".utf8) + le32(16) + le16(1) + le16(2)
            + le32(48_000) + le32(48_000 * 4) + le16(4) + le16(16) + Array("data".utf8) + le32(pcm.count) + pcm
    }

    static func temporaryFile(_ name: String, _ bytes: [UInt8]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cast-audio-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent(name)
        try Data(bytes).write(to: file)
        return file
    }

    /// The tone's pitch and level as the speaker decoded them, and the summary's figures.
    static func expectTone(
        _ run: CastCommandLineTests.Run, _ tone: DecodedTone, _ emulator: CastEmulator, frequency: Double = 1_000,
        level: Double = -9.03
    ) throws {
        #expect(run.status == 0, "\(run.stderr)")
        let summary = try run.json()
        #expect(summary["applicationId"] == "85CDB22F")
        #expect((summary["audioFramesSent"]?.intValue ?? 0) >= 150, "\(summary)")
        #expect(summary["audioFramesDropped"] == 0)
        #expect(run.stderr.contains("kbit/s, frames "), "no live line in \(run.stderr)")
        #expect(abs(tone.frequency - frequency) < 5, "\(tone.frequency) Hz")
        #expect(abs(tone.level - level) < 1, "\(tone.level) dBFS")
        #expect(emulator.streamingReport?.video == nil)
        // The app is stopped by its session id at the end.
        #expect(run.stderr.contains("stopping 85CDB22F"))
        #expect(emulator.runningApplication == nil)
    }

    @Test func aWAVFileReachesTheSpeakerAsATone() async throws {
        let wav = try Self.temporaryFile("tone.wav", Self.toneWAV(seconds: 2))
        try await Self.withSpeaker { emulator, device, tone in
            let run = try await CastCommandLineTests.cast("audio", wav.path, "--device", device, "--json")
            try Self.expectTone(run, tone, emulator)
        }
    }

    /// Any file ffmpeg decodes: ffmpeg's 440 Hz sine at 1/8 scale (−21.1 dBFS) in FLAC.
    @Test(.enabled(if: TestFilm.ffmpeg != nil, "needs ffmpeg"))
    func aFileFFmpegDecodesReachesTheSpeaker() async throws {
        let flac = try await TestFilm.make("tone.flac", seconds: 2, video: ["-vn"], audio: ["-c:a", "flac"])
        try await Self.withSpeaker { emulator, device, tone in
            let run = try await CastCommandLineTests.cast("audio", flac.path, "--device", device, "--json")
            try Self.expectTone(run, tone, emulator, frequency: 440, level: -21.1)
        }
    }

    @Test func rawPCMOnStdinReachesTheSpeakerAsATone() async throws {
        let pcm = try Self.temporaryFile("tone.pcm", Self.tonePCM(seconds: 2))
        try await Self.withSpeaker { emulator, device, tone in
            let output = try await CommandOutput.of([
                "/bin/sh", "-c",
                "exec \(CastCommandLineTests.executable("cast")) audio - --device \(device) --json < \(pcm.path)",
            ])
            let run = CastCommandLineTests.Run(status: output.status, stdout: output.stdout, stderr: output.stderr)
            try Self.expectTone(run, tone, emulator)
        }
    }

    /// A speaker group: its members and their volumes at the start, a member's change as it
    /// comes, and the members in the summary.
    @Test func aSpeakerGroupShowsItsMembersAndTheirVolumes() async throws {
        let wav = try Self.temporaryFile("tone.wav", Self.toneWAV(seconds: 2))
        try await Self.withSpeaker(.speakerGroup) { emulator, device, tone in
            let kitchen = MultizoneDevice(
                id: "kitchen-id", name: "Kitchen", capabilities: 196_612,
                volume: ReceiverVolume(level: 0.5, isMuted: false))
            let hall = MultizoneDevice(
                id: "hall-id", name: "Hall", capabilities: 196_612, volume: ReceiverVolume(level: 0.3, isMuted: true))
            emulator.addGroupMember(kitchen)
            emulator.addGroupMember(hall)
            // Once the sound flows, the kitchen speaker is turned up.
            let turnUp = Task {
                let deadline = ContinuousClock.now + .seconds(20)
                while ContinuousClock.now < deadline, (emulator.streamingReport?.audio?.framesDecoded ?? 0) < 20 {
                    try await Task.sleep(for: .milliseconds(50))
                }
                var louder = kitchen
                louder.volume = ReceiverVolume(level: 0.8, isMuted: false)
                emulator.addGroupMember(louder)
            }
            let run = try await CastCommandLineTests.cast("audio", wav.path, "--device", device, "--json")
            try await turnUp.value
            try Self.expectTone(run, tone, emulator)
            #expect(run.stderr.contains("group of 2: Kitchen (volume 50%), Hall (volume 30%, muted)"), "\(run.stderr)")
            #expect(run.stderr.contains("group member: Kitchen (volume 80%)"), "\(run.stderr)")
            let members = try run.json()["members"]?.arrayValue ?? []
            #expect(members.map { $0["name"] } == ["Kitchen", "Hall"])
            #expect(members.first?["volume"]?["level"] == 0.8)
            #expect(members.last?["volume"]?["muted"] == true)
        }
    }

    /// The group drops every connection mid-run (as one that falls off Wi-Fi): `cast audio`
    /// reconnects, re-attaches, and the same app session plays to the end; nothing is
    /// launched again, the members are followed on the new connection, and the app is still
    /// stopped by its session id at the end.
    @Test func aDroppedConnectionIsReconnectedAndTheSameStreamPlaysOn() async throws {
        let wav = try Self.temporaryFile("tone.wav", Self.toneWAV(seconds: 3))
        try await Self.withSpeaker(.speakerGroup) { emulator, device, tone in
            let kitchen = MultizoneDevice(
                id: "kitchen-id", name: "Kitchen", volume: ReceiverVolume(level: 0.5, isMuted: false))
            emulator.addGroupMember(kitchen)
            let launches = emulator.events()
            let dropper = Task {
                func decoded(atLeast count: Int) async throws -> Bool {
                    try await waitUntil(within: .seconds(20)) {
                        (emulator.streamingReport?.audio?.framesDecoded ?? 0) >= count
                    }
                }
                let flowed = try await decoded(atLeast: 50)
                #expect(flowed)
                let session = emulator.runningApplication?.sessionID
                let lastBeforeTheDrop = emulator.streamingReport?.audio?.lastFrameID ?? -1
                await emulator.closeConnections()
                // Once the sound flows again, a member changes: the group is followed on the new connection.
                let flowedAgain = try await decoded(atLeast: (emulator.streamingReport?.audio?.framesDecoded ?? 0) + 30)
                #expect(flowedAgain)
                var louder = kitchen
                louder.volume = ReceiverVolume(level: 0.8, isMuted: false)
                emulator.addGroupMember(louder)
                return (session, lastBeforeTheDrop)
            }
            let run = try await CastCommandLineTests.cast("audio", wav.path, "--device", device, "--json")
            let (droppedSession, lastBeforeTheDrop) = try await dropper.value
            #expect(run.status == 0, "\(run.stderr)")
            #expect(
                run.stderr.contains("reconnecting") && run.stderr.contains("the same stream goes on"), "\(run.stderr)")
            #expect(run.stderr.contains("group member: Kitchen (volume 80%)"), "\(run.stderr)")
            #expect(abs(tone.frequency - 1_000) < 5, "\(tone.frequency) Hz")
            // The frames after the reconnection go on the stream's numbering (a new stream would
            // start again at 0): correctness, not how many a sanitizer's slower run delivered.
            let audio = emulator.streamingReport?.audio
            #expect((audio?.lastFrameID ?? -1) >= lastBeforeTheDrop + 30, "\(String(describing: audio))")
            // Every LAUNCH the run sent is in once the socket its STOP came on has closed: the
            // emulator reports a connection's messages in order and its end after them, and one
            // sent on the dropped connection came before the drop.
            let launchCount = NIOLockedValueBox(0)
            let stopConnection = NIOLockedValueBox<Int?>(nil)
            let ended = await first(launches) { event in
                switch event {
                case .messageReceived(let connection, let message):
                    if message.text?.contains(#""LAUNCH""#) == true { launchCount.withLockedValue { $0 += 1 } }
                    if message.namespace == CastNamespace.receiver,
                        let json = try? JSONValue(parsing: message.text ?? ""), json["type"] == "STOP",
                        json["sessionId"]?.stringValue == droppedSession
                    {
                        stopConnection.withLockedValue { $0 = connection }
                    }
                    return false
                case .connectionClosed(let connection):
                    return stopConnection.withLockedValue { $0 } == connection
                default:
                    return false
                }
            }
            #expect(ended != nil, "the connection the app was stopped on did not end")
            #expect(launchCount.withLockedValue { $0 } == 1)
            #expect(droppedSession != nil)
            #expect(run.stderr.contains("stopping 85CDB22F"))
            #expect(emulator.runningApplication == nil)
        }
    }

    @Test func aDeviceWithoutTheMirroringAppsAndBadArgumentsHaveTheirExitCodes() async throws {
        var profile = ReceiverProfile.nestSpeaker
        profile.applications = [.defaultMediaReceiver]
        let wav = try Self.temporaryFile("tone.wav", Self.toneWAV(seconds: 0.5))
        try await Self.withSpeaker(profile) { _, device, _ in
            let run = try await CastCommandLineTests.cast("audio", wav.path, "--device", device)
            #expect(run.status == 5, "\(run.stderr)")
            #expect(run.stderr.contains("0F5096E8"), "\(run.stderr)")
        }
        let neither = try await CastCommandLineTests.cast("audio", "--device", "127.0.0.1:1")
        #expect(neither.status == 64)
        let notSound = try Self.temporaryFile("notes.txt", Array("not a sound".utf8))
        let unreadable = try await CastCommandLineTests.cast("audio", notSound.path, "--device", "127.0.0.1:1")
        #expect(unreadable.status == 9, "\(unreadable.stderr)")
    }
}
