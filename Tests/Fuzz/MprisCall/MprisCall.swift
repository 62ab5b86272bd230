import CDBus
import CastDBus
import CastKit
import CastMPRIS
import CastUI
import Foundation

/// What a desktop (or any peer on the session bus) sends the MPRIS player:
/// a whole message demarshalled by libdbus (which validates it), read into
/// `DBusValue`s, answered by the player's object (with no session: actions
/// fail quietly), and the answer written back into a reply message.
///
/// The seed corpus is one well-formed call of each method and property
/// access the player serves, written by `cast-fuzz mpris-call --seed DIR`.
enum MPRISFuzzing {
    static let object = MPRISObject(
        controller: MediaControllerModel(sessionManager: SessionManager(options: CastOptions(sessionStore: nil))),
        volume: nil, identity: "fuzz", raise: {})

    static func call(_ bytes: [UInt8]) {
        guard let message = DBusValue.message(demarshalling: bytes) else { return }
        defer { dbus_message_unref(message) }
        guard case .reply(let values) = Self.object.handle(SessionBus.MethodCall(message: message)),
            let reply = dbus_message_new_signal("/fuzz", "org.example.Fuzz", "Reply")
        else { return }
        defer { dbus_message_unref(reply) }
        for value in values { _ = DBusValue.append(value, to: reply) }
    }

    /// One marshalled call of each kind the player serves.
    static func seeds() -> [String: [UInt8]] {
        let player = "org.mpris.MediaPlayer2.Player"
        let calls: [(String, String, String, [DBusValue])] = [
            ("play-pause", player, "PlayPause", []),
            ("seek", player, "Seek", [.int64(10_000_000)]),
            ("set-position", player, "SetPosition", [.objectPath("/org/mpris/MediaPlayer2/cast/current"), .int64(5)]),
            ("open-uri", player, "OpenUri", [.string("https://example.com/a.mp4")]),
            ("get", "org.freedesktop.DBus.Properties", "Get", [.string(player), .string("Metadata")]),
            ("get-all", "org.freedesktop.DBus.Properties", "GetAll", [.string(player)]),
            (
                "set-volume", "org.freedesktop.DBus.Properties", "Set",
                [.string(player), .string("Volume"), .variant(.double(0.5))]
            ),
            ("introspect", "org.freedesktop.DBus.Introspectable", "Introspect", []),
        ]
        return DBusSeeds.marshal(calls, destination: "org.mpris.MediaPlayer2.cast", path: "/org/mpris/MediaPlayer2")
    }
}
