import ArgumentParser
import CastKit
import CastMPRIS
import CastSystemSleep
import CastUI
import Foundation
import NIOConcurrencyHelpers

/// `cast ui`: a full-screen terminal controller built on `CastUI` alone —
/// the device chooser, now playing with a live progress bar, and keys for
/// the controls that work.
struct UICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ui",
        abstract: "A full-screen terminal controller: choose a device, control what it plays.",
        discussion: """
            Keys: ↑/↓ and Enter choose a device; space play/pause; ←/→ seek 10 s; +/- volume; m mute; \
            n/p next/previous; t subtitles; r playback rate; k skip ad; c devices; s stop casting; \
            d disconnect; q quit. The session is remembered, so the next cast ui resumes it.
            """)

    @Option(help: "The receiver app sessions launch or join (default: the Default Media Receiver).")
    var app = CastApplicationID.defaultMediaReceiver

    @OptionGroup var devices: KnownHostOptions

    @Flag(help: "Let the desktop's media keys and controls (MPRIS) control the TV too.") var mpris = false

    @OptionGroup(title: "Discovery") var discovery: DiscoveryOptions

    @Flag(name: .shortAndLong, help: "Log what the SDK does (to stderr).") var verbose = false

    /// The SDK's options: the app, passive discovery, the device trust asked for.
    func options() throws -> CastOptions {
        var options = CastOptions(
            receiverApplicationID: self.app, logger: DeviceOptions.makeLogger(verbose: self.verbose))
        options.discovery = self.discovery.configuration
        options.discovery.scanMode = .passive
        options.deviceAuthentication = try self.devices.trust.policy()
        self.devices.restrict(&options.discovery)
        return options
    }

    func run() async throws {
        try await self.reportingFailures {
            let context = CastContext(options: try self.options())
            await self.devices.add(to: context.discoveryManager)
            let controller = Controller(context: context)
            // The session through the machine's sleep (logind), where there is a system bus.
            let sleep = try? SystemSleepMonitor(sessionManager: context.sessionManager)
            defer { sleep?.close() }
            // The desktop's "show the player" brings the now-playing view forward.
            let desktop =
                self.mpris
                ? DesktopControls(
                    controller: controller.media, volume: controller.volume, raise: { controller.showNowPlaying() })
                : nil
            defer { desktop?.close() }
            let terminal = try Terminal()
            defer { terminal.restore() }
            try await controller.run(in: terminal)
            await context.stop()
        }
    }
}

/// The running controller: follows the models, draws, and acts on keys.
private final class Controller: Sendable {
    private enum Input: Sendable {
        case redraw
        case key(Key)
        /// The desktop asked to see the player (MPRIS `Raise`).
        case showNowPlaying
    }

    private let context: CastContext
    private let button: CastButtonModel
    private let chooser: DeviceChooserModel
    private let introduction: IntroductionPrompt
    private let screen = NIOLockedValueBox(UIScreen())
    private let inputs: AsyncStream<Input>
    private let input: AsyncStream<Input>.Continuation

    init(context: CastContext) {
        self.context = context
        self.button = CastButtonModel(context: context)
        self.chooser = DeviceChooserModel(context: context)
        self.introduction = IntroductionPrompt(
            context: context,
            flagFile: XDGDirectory.state.file(
                "ui-introduction-shown", application: "cast"))
        (self.inputs, self.input) = AsyncStream.makeStream(of: Input.self, bufferingPolicy: .bufferingNewest(64))
    }

    /// Brings the now-playing view forward (closes the device list while a session runs).
    func showNowPlaying() {
        self.input.yield(.showNowPlaying)
    }

    /// The session's media, for the desktop's controls too.
    var media: MediaControllerModel { self.chooser.mediaController }
    /// The device's volume, for the desktop's controls too.
    var volume: VolumeModel { self.chooser.volume }

    func run(in terminal: Terminal) async throws {
        let followers = [
            self.follow(self.button.updates()) { $0.button = $1 },
            self.follow(self.chooser.updates()) { screen, chooser in
                screen.chooser = chooser
                screen.selected = min(screen.selected, max(chooser.entries.count - 1, 0))
            },
            self.follow(self.chooser.mediaController.updates()) { $0.controls = $1 },
            self.follow(self.chooser.volume.updates()) { $0.volume = $1 },
            self.follow(self.introduction.updates()) { $0.showsIntroduction = $1 },
            Task { [terminal, input] in
                for await key in terminal.keys { input.yield(.key(key)) }
                input.yield(.key(.character("q")))
            },
            Task { [terminal, input] in
                for await _ in terminal.resizes { input.yield(.redraw) }
            },
        ]
        defer { for follower in followers { follower.cancel() } }
        await self.chooser.open()
        self.input.yield(.redraw)
        for await input in self.inputs {
            switch input {
            case .redraw:
                let screen = self.screen.withLockedValue { $0 }
                terminal.draw(screen.lines(width: terminal.size.columns))
            case .key(.character("q")):
                await self.chooser.close()
                return
            case .showNowPlaying:
                await self.chooser.dismiss()
                self.screen.withLockedValue { $0.message = "shown from the desktop's media controls" }
                self.input.yield(.redraw)
            case .key(let key):
                self.handle(key)
                self.input.yield(.redraw)
            }
        }
    }

    /// Copies each state of `updates` onto the screen and asks for a redraw.
    private func follow<State: Sendable>(
        _ updates: AsyncStream<State>, _ apply: @escaping @Sendable (inout UIScreen, State) -> Void
    ) -> Task<Void, Never> {
        Task { [screen, input] in
            for await state in updates {
                screen.withLockedValue { apply(&$0, state) }
                input.yield(.redraw)
            }
        }
    }

    private func handle(_ key: Key) {
        let screen = self.screen.withLockedValue { $0 }
        if screen.showsIntroduction { try? self.introduction.markShown() }
        if screen.showsDevices {
            switch key {
            case .up:
                self.screen.withLockedValue { $0.selected = max($0.selected - 1, 0) }
                return
            case .down:
                self.screen.withLockedValue { $0.selected = min($0.selected + 1, max($0.chooser.entries.count - 1, 0)) }
                return
            case .enter:
                guard screen.chooser.entries.indices.contains(screen.selected) else { return }
                let device = screen.chooser.entries[screen.selected].device
                self.perform { try await self.chooser.select(device) }
                self.perform { await self.chooser.dismiss() }
                return
            case .escape:
                self.perform { await self.chooser.dismiss() }
                return
            default:
                break
            }
        }
        let controller = self.chooser.mediaController
        let volume = self.chooser.volume
        switch key {
        case .character(" "): self.perform { try await controller.togglePlayback() }
        case .left: self.perform { try await controller.skip(by: -controller.skipInterval) }
        case .right: self.perform { try await controller.skip() }
        case .character("+"), .character("="), .up: self.perform { try await volume.stepUp() }
        case .character("-"), .down: self.perform { try await volume.stepDown() }
        case .character("m"): self.perform { try await volume.toggleMute() }
        case .character("n"): self.perform { try await controller.next() }
        case .character("p"): self.perform { try await controller.previous() }
        case .character("k"): self.perform { try await controller.skipAd() }
        case .character("t"):
            self.perform { try await controller.setActiveTrackIDs(Self.nextSubtitles(screen.controls)) }
        case .character("r"): self.perform { try await controller.setPlaybackRate(Self.nextRate(screen.controls)) }
        case .character("c"): self.perform { await self.chooser.open() }
        case .character("s"): self.perform { await self.chooser.stopCasting() }
        case .character("d"): self.perform { await self.chooser.disconnect() }
        default: break
        }
    }

    /// Runs an action off the key loop; its error becomes the message line.
    private func perform(_ action: @escaping @Sendable () async throws -> Void) {
        Task { [screen, input] in
            do {
                try await action()
                screen.withLockedValue { $0.message = nil }
            } catch {
                screen.withLockedValue { $0.message = "\(error)" }
            }
            input.yield(.redraw)
        }
    }

    /// The active tracks after `t`: subtitles off → the first → the next … → off; other tracks kept.
    static func nextSubtitles(_ controls: MediaControls) -> [Int] {
        let subtitles = controls.tracks.filter { $0.kind == .text }.map(\.trackID)
        let others = controls.activeTrackIDs.filter { !subtitles.contains($0) }
        let current = subtitles.firstIndex { controls.activeTrackIDs.contains($0) }
        let next = current.map { $0 + 1 } ?? 0
        return others + (next < subtitles.count ? [subtitles[next]] : [])
    }

    /// The rate after `r`: 1 → 1.25 → 1.5 → 2 → 0.5 → 0.75 → 1.
    static func nextRate(_ controls: MediaControls) -> Double {
        let rates = [1, 1.25, 1.5, 2, 0.5, 0.75]
        let index = rates.firstIndex { abs($0 - controls.playbackRate) < 0.01 } ?? -1
        return rates[(index + 1) % rates.count]
    }
}
