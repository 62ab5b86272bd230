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
/// The player follows a ``MediaControllerModel``: its state becomes the
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
    private let controller: MediaControllerModel
    private let volume: VolumeModel?
    private let identity: String
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
    /// - Throws: ``MPRISError`` when the bus is unreachable or the name taken.
    public init(
        controller: MediaControllerModel, volume: VolumeModel? = nil, identity: String = "Cast", name: String = "cast",
        busAddress: String? = nil
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
        self.controller = controller
        self.volume = volume
        self.identity = identity
        self.published.withLockedValue {
            $0.player = MPRISProperties.player(controller.controls, volume: volume?.volume)
        }
        let server = Thread { [bus, stopped, weak self] in
            try? bus.serve(until: { stopped.withLockedValue { $0 } }) { call in
                self?.handle(call) ?? .error(name: "org.freedesktop.DBus.Error.Failed", message: "the player closed")
            }
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
        let controls = self.controller.updates()
        let volumes = self.volume?.updates()
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
        let controls = self.controller.controls
        let current = MPRISProperties.player(controls, volume: self.volume?.volume)
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

    // MARK: Serving calls

    private func handle(_ call: SessionBus.MethodCall) -> SessionBus.MethodResult {
        guard call.path == MPRISProperties.objectPath else {
            return .error(name: "org.freedesktop.DBus.Error.UnknownObject", message: "no object at \(call.path)")
        }
        switch (call.interface, call.member) {
        case (MPRISProperties.introspectableInterface, "Introspect"):
            return .reply([.string(MPRISProperties.introspection)])
        case (MPRISProperties.propertiesInterface, "Get"):
            guard let interface = call.arguments.first?.string, let name = call.arguments.dropFirst().first?.string,
                let value = self.properties(of: interface)?[name]
            else { return Self.invalidArguments("no such property") }
            return .reply([.variant(value)])
        case (MPRISProperties.propertiesInterface, "GetAll"):
            guard let interface = call.arguments.first?.string, let properties = self.properties(of: interface) else {
                return .reply([.dictionary([:])])
            }
            return .reply([.dictionary(properties)])
        case (MPRISProperties.propertiesInterface, "Set"):
            return self.set(call.arguments)
        case (MPRISProperties.rootInterface, "Raise"), (MPRISProperties.rootInterface, "Quit"):
            return .reply([])
        case (MPRISProperties.playerInterface, _), ("", _):
            return self.player(call.member, call.arguments)
        default:
            return .error(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "\(call.interface).\(call.member)")
        }
    }

    private func properties(of interface: String) -> [String: DBusValue]? {
        switch interface {
        case MPRISProperties.rootInterface: MPRISProperties.root(identity: self.identity)
        case MPRISProperties.playerInterface:
            MPRISProperties.player(self.controller.controls, volume: self.volume?.volume)
        default: nil
        }
    }

    /// The Player interface's methods: each starts the model's action and answers at once.
    private func player(_ member: String, _ arguments: [DBusValue]) -> SessionBus.MethodResult {
        let controller = self.controller
        let controls = controller.controls
        switch member {
        case "PlayPause": Self.perform { try await controller.togglePlayback() }
        case "Play" where controls.primaryAction == .play: Self.perform { try await controller.togglePlayback() }
        case "Pause" where controls.primaryAction == .pause: Self.perform { try await controller.togglePlayback() }
        case "Play", "Pause": break
        case "Stop": Self.perform { try await controller.stop() }
        case "Next": Self.perform { try await controller.next() }
        case "Previous": Self.perform { try await controller.previous() }
        case "Seek":
            guard case .int64(let offset)? = arguments.first else { return Self.invalidArguments("Seek takes x") }
            Self.perform { try await controller.skip(by: Double(offset) / 1_000_000) }
        case "SetPosition":
            guard arguments.count == 2, arguments[0].string == MPRISProperties.trackID,
                case .int64(let position) = arguments[1]
            else { return .reply([]) }  // a stale track id is ignored, as the spec says
            Self.perform { try await controller.seek(to: Double(position) / 1_000_000) }
        case "OpenUri":
            return .error(name: "org.mpris.MediaPlayer2.Error.NotSupported", message: "cast the URI with cast play")
        default:
            return .error(name: "org.freedesktop.DBus.Error.UnknownMethod", message: member)
        }
        return .reply([])
    }

    /// Properties.Set: `Volume` and `Rate`; the rest are read-only.
    private func set(_ arguments: [DBusValue]) -> SessionBus.MethodResult {
        guard arguments.count == 3, arguments[0].string == MPRISProperties.playerInterface,
            case .double(let value) = arguments[2]
        else {
            return .error(name: "org.freedesktop.DBus.Error.PropertyReadOnly", message: "only Volume and Rate are set")
        }
        let controller = self.controller
        switch arguments[1].string {
        case "Volume":
            if let volume = self.volume {
                Self.perform { try await volume.setLevel(value) }
            } else {
                Self.perform { try await controller.setStreamVolume(value) }
            }
        case "Rate" where value > 0:
            Self.perform { try await controller.setPlaybackRate(value) }
        default:
            return .error(name: "org.freedesktop.DBus.Error.PropertyReadOnly", message: "only Volume and Rate are set")
        }
        return .reply([])
    }

    private static func perform(_ action: @escaping @Sendable () async throws -> Void) {
        Task { try? await action() }
    }

    private static func invalidArguments(_ message: String) -> SessionBus.MethodResult {
        .error(name: "org.freedesktop.DBus.Error.InvalidArgs", message: message)
    }
}
