package import CastDBus
package import CastUI

/// The MPRIS object at `/org/mpris/MediaPlayer2`: what each method call
/// answers and does, apart from the bus (so the fuzz target can call it).
package struct MPRISObject: Sendable {
    let controller: MediaControllerModel
    let volume: VolumeModel?
    let identity: String
    let raise: (@Sendable () -> Void)?

    /// The object for `controller`, with `volume` (if the player has one), named `identity`;
    /// `Raise` calls `raise`, and without one the player says it cannot be raised.
    package init(
        controller: MediaControllerModel, volume: VolumeModel?, identity: String, raise: (@Sendable () -> Void)? = nil
    ) {
        self.controller = controller
        self.volume = volume
        self.identity = identity
        self.raise = raise
    }

    /// The Player interface's properties now.
    func playerProperties() -> [String: DBusValue] {
        MPRISProperties.player(self.controller.controls, volume: self.volume?.volume)
    }

    /// The answer to `call`; actions start at once and the call is answered without waiting.
    package func handle(_ call: SessionBus.MethodCall) -> SessionBus.MethodResult {
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
        case (MPRISProperties.rootInterface, "Raise"):
            // Answered at once; the app shows its controller as it does.
            self.raise?()
            return .reply([])
        case (MPRISProperties.rootInterface, "Quit"):
            return .reply([])
        case (MPRISProperties.playerInterface, _), ("", _):
            return self.player(call.member, call.arguments)
        default:
            return .error(name: "org.freedesktop.DBus.Error.UnknownMethod", message: "\(call.interface).\(call.member)")
        }
    }

    private func properties(of interface: String) -> [String: DBusValue]? {
        switch interface {
        case MPRISProperties.rootInterface: MPRISProperties.root(identity: self.identity, canRaise: self.raise != nil)
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
