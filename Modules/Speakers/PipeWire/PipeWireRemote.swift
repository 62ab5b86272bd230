import Foundation

/// The PipeWire behind a pulse server, where PipeWire's pulse server is
/// the one answering: the socket its own protocol listens on.
package struct PipeWireRemote: Sendable, Equatable {
    /// The socket's path; `nil` for the user's own (`PIPEWIRE_REMOTE`, else
    /// `pipewire-0` in `PIPEWIRE_RUNTIME_DIR` or `XDG_RUNTIME_DIR`).
    package var socket: String?

    /// The PipeWire behind the server called `serverName` at `address`
    /// (libpulse's form, `unix:/run/user/1000/pulse/native`; `nil` for the
    /// user's own): `nil` when the server is not PipeWire's, or when its
    /// socket is not beside the pulse socket (in the runtime directory the
    /// pulse directory is in, where pipewire-pulse makes it).
    package static func behind(serverName: String, address: String?) -> PipeWireRemote? {
        guard serverName.contains("PipeWire") else { return nil }
        guard let address else { return PipeWireRemote(socket: nil) }
        guard address.hasPrefix("unix:") || address.hasPrefix("/") else { return nil }
        let path = address.hasPrefix("unix:") ? String(address.dropFirst(5)) : address
        var directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        for _ in 0..<2 {
            let socket = directory.appendingPathComponent("pipewire-0").path
            if FileManager.default.fileExists(atPath: socket) { return PipeWireRemote(socket: socket) }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }
}
