public import CastKit
public import CastUI
public import Foundation
import NIOConcurrencyHelpers

/// A full-screen Cast controller for a terminal, built on CastUI's models
/// alone: the device chooser, what plays with a live progress bar, the
/// volume, and keys for the controls that work now.
///
/// Keys: ↑/↓ and Enter choose a device (Esc closes the list while a session
/// runs); space plays or pauses; ←/→ seek 10 s; +/- (or ↑/↓ outside the
/// list) the volume; `m` mute; `n`/`p` next and previous; `t` the next
/// subtitles; `r` the next playback rate; `k` skip the ad; `c` the devices;
/// `s` stop casting; `d` disconnect; `q` (or Ctrl-C) quits. A control that
/// fails puts its error on the message line.
///
/// ```swift
/// let controller = TerminalController(context: context)
/// let terminal = try Terminal()
/// defer { terminal.restore() }
/// await controller.run(on: terminal)
/// ```
public final class TerminalController: Sendable {
    enum Input: Sendable {
        case redraw
        case key(TerminalKey)
        /// The desktop asked to see the player (MPRIS `Raise`).
        case showNowPlaying
    }

    let button: CastButtonModel
    let chooser: DeviceChooserModel
    let introduction: IntroductionPrompt
    let screen = NIOLockedValueBox(TerminalScreen())
    private let inputs: AsyncStream<Input>
    let input: AsyncStream<Input>.Continuation

    /// A controller of `context`'s devices and session; the introduction's
    /// "shown" mark is kept in `introductionFlagFile` (by default where
    /// `IntroductionPrompt` keeps it).
    public init(
        context: CastContext, introductionFlagFile: URL = XDGDirectory.state.file("cast-introduction-shown")
    ) {
        self.button = CastButtonModel(context: context)
        self.chooser = DeviceChooserModel(context: context)
        self.introduction = IntroductionPrompt(context: context, flagFile: introductionFlagFile)
        (self.inputs, self.input) = AsyncStream.makeStream(of: Input.self, bufferingPolicy: .bufferingNewest(64))
    }

    /// Brings the now-playing view forward (closes the device list while a
    /// session runs), as the desktop's "show the player" asks.
    public func showNowPlaying() {
        self.input.yield(.showNowPlaying)
    }

    /// The session's media, for the desktop's controls too.
    public var media: MediaControllerModel { self.chooser.mediaController }
    /// The device's volume, for the desktop's controls too.
    public var volume: VolumeModel { self.chooser.volume }

    /// Draws on `surface` and acts on its keys until `q`, Ctrl-C, or its
    /// keys end; opens the device list first and closes it at the end.
    public func run(on surface: some TerminalSurface) async {
        let followers = [
            self.follow(self.button.updates()) { $0.button = $1 },
            self.follow(self.chooser.updates()) { screen, chooser in
                screen.chooser = chooser
                screen.selected = min(screen.selected, max(chooser.entries.count - 1, 0))
            },
            self.follow(self.chooser.mediaController.updates()) { $0.controls = $1 },
            self.follow(self.chooser.volume.updates()) { $0.volume = $1 },
            self.follow(self.introduction.updates()) { $0.showsIntroduction = $1 },
            Task { [input] in
                for await key in surface.keys { input.yield(.key(key)) }
                input.yield(.key(.character("q")))
            },
            Task { [input] in
                for await _ in surface.resizes { input.yield(.redraw) }
            },
        ]
        defer { for follower in followers { follower.cancel() } }
        await self.chooser.open()
        self.input.yield(.redraw)
        for await input in self.inputs {
            switch input {
            case .redraw:
                let screen = self.screen.withLockedValue { $0 }
                surface.draw(screen.lines(width: surface.size.columns))
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
        _ updates: AsyncStream<State>, _ apply: @escaping @Sendable (inout TerminalScreen, State) -> Void
    ) -> Task<Void, Never> {
        Task { [screen, input] in
            for await state in updates {
                screen.withLockedValue { apply(&$0, state) }
                input.yield(.redraw)
            }
        }
    }
}
