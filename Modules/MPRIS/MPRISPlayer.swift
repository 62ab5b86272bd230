import CastDBus
import CastKit
public import CastUI
import Foundation
import NIOConcurrencyHelpers

/// The current Cast media session as an MPRIS player on the D-Bus session
/// bus (`org.mpris.MediaPlayer2.Player`), so GNOME's and KDE's media
/// controls, lock screens and the keyboard's media keys control the TV —
/// the Linux counterpart of the iOS SDK's lock-screen and notification controls.
///
/// The player follows a `MediaControllerModel`: its state becomes the
/// MPRIS properties (announced with `PropertiesChanged`, jumps in position
/// with `Seeked`), and MPRIS calls become the model's actions.
///
/// ```swift
/// let controller = MediaControllerModel(sessionManager: context.sessionManager)
/// let player = try MPRISPlayer(controller: controller, volume: VolumeModel(sessionManager: context.sessionManager))
/// // … the desktop's media keys now pause, skip and seek …
/// player.close()
/// ```
public final class MPRISPlayer: Sendable {
    private struct Published {
        var player: [String: DBusValue] = [:]
        var position: (seconds: Double, at: ContinuousClock.Instant, rate: Double, playing: Bool)?
    }

    /// The bus name it owns: `org.mpris.MediaPlayer2.<name>.instance<pid>`.
    public let busName: String
    private let bus: SessionBus
    private let object: MPRISObject
    private let stopped = NIOLockedValueBox(false)
    private let published = NIOLockedValueBox(Published())
    private let follower = NIOLockedValueBox<Task<Void, Never>?>(nil)

    /// Starts the player.
    ///
    /// - Parameters:
    ///   - controller: the media it shows and controls.
    ///   - volume: the device volume MPRIS's `Volume` sets; `nil` to set the stream's.
    ///   - identity: the name the desktop shows for the player.
    ///   - name: the bus name's middle part (`org.mpris.MediaPlayer2.<name>.instance<pid>`).
    ///   - busAddress: the bus to use; `nil` for the session bus.
    ///   - raise: what the desktop's "show the player" (MPRIS `Raise`) does:
    ///     open the app's expanded controller, the SDK's counterpart; `nil`
    ///     (the default) for a player the desktop cannot raise (`CanRaise` false).
    ///     Called on the player's bus thread; hop to the app's own.
    /// - Throws: ``MPRISError`` when the bus is unreachable or the name taken.
    public init(
        controller: MediaControllerModel, volume: VolumeModel? = nil, identity: String = "Cast", name: String = "cast",
        busAddress: String? = nil, raise: (@Sendable () -> Void)? = nil
    ) throws(MPRISError) {
        self.busName = "org.mpris.MediaPlayer2.\(name).instance\(ProcessInfo.processInfo.processIdentifier)"
        do {
            self.bus = try SessionBus(address: busAddress)
        } catch {
            throw MPRISError(.busUnavailable, error.description)
        }
        do {
            try self.bus.requestName(self.busName)
        } catch {
            throw MPRISError(.nameTaken, error.description)
        }
        let object = MPRISObject(controller: controller, volume: volume, identity: identity, raise: raise)
        self.object = object
        self.published.withLockedValue { $0.player = object.playerProperties() }
        let server = Thread { [bus, stopped] in
            try? bus.serve(until: { stopped.withLockedValue { $0 } }, handler: { object.handle($0) })
        }
        server.name = "cast.mpris"
        server.start()
        self.startFollowing()
    }

    deinit {
        self.close()
    }

    /// Leaves the bus: the desktop's controls forget the player.
    public func close() {
        self.stopped.withLockedValue { $0 = true }
        self.follower.withLockedValue { $0?.cancel() }
    }

    // MARK: Following the model

    private func startFollowing() {
        let controls = self.object.controller.updates()
        let volumes = self.object.volume?.updates()
        let task = Task { [weak self] in
            await withTaskGroup(of: Void.self) { group in
                group.addTask { [weak self] in
                    for await _ in controls { self?.publish() }
                }
                if let volumes {
                    group.addTask { [weak self] in
                        for await _ in volumes { self?.publish() }
                    }
                }
            }
        }
        self.follower.withLockedValue { $0 = task }
    }

    /// Announces the properties that changed (Position never is, as the
    /// spec says), and a jump in position as `Seeked`.
    private func publish() {
        let controls = self.object.controller.controls
        let current = MPRISProperties.player(controls, volume: self.object.volume?.volume)
        let now = ContinuousClock.now
        let (changed, seeked) = self.published.withLockedValue { published -> ([String: DBusValue], Bool) in
            let changed = current.filter { $0.key != "Position" && published.player[$0.key] != $0.value }
            var seeked = false
            if let last = published.position {
                let expected = last.seconds + (last.playing ? (now - last.at) / .seconds(1) * last.rate : 0)
                seeked = abs(controls.position - expected) > 1.5
            }
            published.player = current
            published.position = (controls.position, now, controls.playbackRate, controls.playerState == .playing)
            return (changed, seeked)
        }
        if !changed.isEmpty {
            self.bus.emitSignal(
                path: MPRISProperties.objectPath, interface: MPRISProperties.propertiesInterface,
                member: "PropertiesChanged",
                arguments: [.string(MPRISProperties.playerInterface), .dictionary(changed), .array([])])
        }
        if seeked {
            self.bus.emitSignal(
                path: MPRISProperties.objectPath, interface: MPRISProperties.playerInterface, member: "Seeked",
                arguments: [.int64(MPRISProperties.microseconds(controls.position))])
        }
    }
}
