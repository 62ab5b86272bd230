import CastEmulator
import CastKit
import CastTestSupport
import CastUI
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import CastTerminalUI

let quietLogger = CastLogger(filter: CastLogFilter(minimumLevel: .none))

/// A surface that keeps every frame drawn and types the keys a test sends.
private final class RecordingSurface: TerminalSurface {
    let keys: AsyncStream<TerminalKey>
    let resizes: AsyncStream<Void>
    private let typing: AsyncStream<TerminalKey>.Continuation
    private let frames = NIOLockedValueBox<[[String]]>([])

    init() {
        (self.keys, self.typing) = AsyncStream.makeStream()
        self.resizes = AsyncStream { _ in }
    }

    var size: (columns: Int, rows: Int) { (100, 40) }

    func draw(_ lines: [String]) {
        self.frames.withLockedValue { $0.append(lines) }
    }

    func type(_ key: TerminalKey) {
        self.typing.yield(key)
    }

    /// The last frame drawn, as one text.
    var screen: String { self.frames.withLockedValue { $0.last?.joined(separator: "\n") ?? "" } }

    /// Waits for a frame holding every one of `texts`; whether one came.
    func waitForScreen(showing texts: String...) async throws -> Bool {
        try await waitUntil(within: .seconds(20)) {
            let screen = self.screen
            return texts.allSatisfy { screen.contains($0) }
        }
    }
}

@Suite(.timeLimit(.minutes(2))) struct TerminalControllerTests {
    @Test func keysAreReadFromWhatOneReadReturned() {
        let bytes = Array("\u{1B}[A\u{1B}[Bx\r\u{1B}\u{03}\u{1B}[Z ".utf8)
        #expect(
            TerminalKey.parse(bytes) == [
                .up, .down, .character("x"), .enter, .escape, .character("q"), .character(" "),
            ])
    }

    @Test func subtitlesAndRatesGoRoundInTurn() {
        var controls = MediaControls.none
        controls.tracks = [
            MediaTrack(trackID: 1, kind: .text, subtype: .subtitles, contentID: "en.vtt"),
            MediaTrack(trackID: 2, kind: .audio, contentID: "a"),
            MediaTrack(trackID: 3, kind: .text, subtype: .subtitles, contentID: "fr.vtt"),
        ]
        controls.activeTrackIDs = [2]
        #expect(TerminalController.nextSubtitles(controls) == [2, 1])
        controls.activeTrackIDs = [2, 1]
        #expect(TerminalController.nextSubtitles(controls) == [2, 3])
        controls.activeTrackIDs = [2, 3]
        #expect(TerminalController.nextSubtitles(controls) == [2])
        controls.playbackRate = 2
        #expect(TerminalController.nextRate(controls) == 0.5)
        controls.playbackRate = 0.75
        #expect(TerminalController.nextRate(controls) == 1)
    }

    /// The controller against an emulated TV in memory: the device is listed,
    /// Enter connects, what plays is drawn with the keys that work, space
    /// pauses and `m` mutes on the device, `q` quits and closes the list.
    @Test func enterConnectsAndTheKeysControlWhatPlays() async throws {
        let emulator = try CastEmulator(
            configuration: CastEmulatorConfiguration(name: "Kitchen", profile: .chromecast), logger: quietLogger)
        try await emulator.start()
        defer { Task { await emulator.stop() } }
        var options = CastOptions(
            receiverApplicationID: CastApplicationID.defaultMediaReceiver,
            connection: CastConnectionConfiguration(deviceAuthentication: .off),
            requestTimeout: .seconds(5), sessionStore: nil, logger: quietLogger)
        options.connectionFactory = [emulator].inMemoryConnectionFactory
        options.discovery.interfaces = .named([])
        let context = CastContext(options: options)
        let flag = FileManager.default.temporaryDirectory.appendingPathComponent("terminal-ui-\(UUID())")
        let controller = TerminalController(context: context, introductionFlagFile: flag)
        let surface = RecordingSurface()
        let running = Task { await controller.run(on: surface) }

        #expect(try await surface.waitForScreen(showing: "Cast — no devices", "q quit"), "\(surface.screen)")
        await context.discoveryManager.addKnownHost(
            try #require(IPAddress("127.0.0.1")), port: emulator.port, friendlyName: "Kitchen")
        #expect(try await surface.waitForScreen(showing: "> Kitchen"), "\(surface.screen)")
        surface.type(.enter)
        #expect(
            try await surface.waitForScreen(showing: "connected to Kitchen", "NOW PLAYING", "nothing playing"),
            "\(surface.screen)")

        var metadata = MediaMetadata(type: .movie)
        metadata.setString("Big Buck Bunny", forKey: .title)
        let movie = MediaInformation(
            contentID: "https://media.example/bbb.mp4", contentType: "video/mp4", metadata: metadata, duration: 600)
        let client = try #require(await context.sessionManager.currentSession?.remoteMediaClient)
        try await client.load(MediaLoadRequestData(mediaInformation: movie))
        #expect(
            try await surface.waitForScreen(showing: "Big Buck Bunny", "/ 10:00", "space pause", "m mute"),
            "\(surface.screen)")

        let received = emulator.events()
        surface.type(.character(" "))
        surface.type(.character("m"))
        let asked = NIOLockedValueBox(Set<String>())
        _ = await first(received) { event in
            guard case .messageReceived(_, let message) = event, let text = message.text else { return false }
            return asked.withLockedValue { asked in
                if text.contains(#""PAUSE""#) { asked.insert("pause") }
                if text.contains(#""SET_VOLUME""#) && text.contains(#""muted":true"#) { asked.insert("mute") }
                return asked.count == 2
            }
        }
        #expect(asked.withLockedValue { $0 } == ["pause", "mute"])
        #expect(try await surface.waitForScreen(showing: "(muted)", "space play"), "\(surface.screen)")

        surface.type(.character("q"))
        await running.value
        #expect(await context.discoveryManager.scanMode == .passive)
        await context.stop()
    }
}
