import CastChannels
import CastDBus
import CastRemoteDisplay
import Foundation

/// The TV as a second screen on sway: a headless output (`create_output`)
/// of the receiver's size beside the others, shared through the desktop's
/// portal (xdg-desktop-portal-wlr), and taken away when the cast ends.
///
/// The portal would ask the user which output to share, and the new one
/// shows nothing to point at; so, as an earlier share of it would have,
/// the output is granted to this app in the portal's permission store
/// under a token used once — xdg-desktop-portal-wlr's restore data,
/// `("wlroots", 1, {"output_name": NAME})` (its `screencast.c`) — and the
/// portal shares it without asking. The grant is removed once the share
/// started. sway 1.8 and later remove the output (`output NAME unplug`).
/// sway 1.7 has no `unplug`, and its wlroots (0.15) cannot even disable a
/// headless output (its headless backend does not support the `enabled`
/// state: "Failed to commit output"), so there the output stays until sway
/// exits; its name is kept (``SwayOutputMemory``) and the next cast on
/// the same sway uses it again instead of making another.
//
// @unchecked Sendable, and why it is safe: its mutable state (`portal`, `removed`, and the `SwayConnection`) is
// written only (1) by its initializer, on the thread that sets the capture up,
// and (2) by `close()`. Nothing else holds it but the `PipeWireGrabber` it is
// handed to, which `ScreenCapture` stores in a `NIOLockedValueBox` and takes
// out under that lock to give to the capture thread — the lock orders the
// set-up thread's writes before any read there. `close()` runs from the
// grabber's `deinit` (one thread, once) and from this object's own `deinit`,
// which can only run after the grabber released it, on the same thread; so
// no two threads ever touch the state at the same time.
final class SwayVirtualOutput: ScreenCastOwner, @unchecked Sendable {
    /// The output's name (`HEADLESS-2`…).
    let name: String
    private let sway: SwayConnection
    private var portal: ScreenCastPortal?
    private var removed = false
    private let socket: String

    private init(name: String, sway: SwayConnection, socket: String) {
        self.name = name
        self.sway = sway
        self.socket = socket
    }

    /// Makes the output (`size`, to the right of the others) on the sway at
    /// `socket` and shares it through `portal`, granted in `store`.
    static func open(
        size: RemoteDisplayConfiguration.Resolution, socket: String, portal: ScreenCastPortal,
        store: PortalPermissionStore, configuration: ScreenCaptureConfiguration, isCancelled: () -> Bool
    ) throws(CaptureError) -> (grant: ScreenCastGrant, owner: SwayVirtualOutput) {
        let sway = try SwayConnection(path: socket)
        let output = SwayVirtualOutput(name: try Self.makeOutput(on: sway, socket: socket), sway: sway, socket: socket)
        do throws(CaptureError) {
            try sway.run("output \(output.name) resolution \(size.width)x\(size.height)")
            let grant = try output.share(
                through: portal, store: store, configuration: configuration, isCancelled: isCancelled)
            if let shared = grant.size, shared != (size.width, size.height) {
                UnixSocket.close(grant.pipeWireRemote)
                throw CaptureError(
                    .portalUnavailable,
                    "the portal shared a \(shared.width)x\(shared.height) output, not \(output.name): "
                        + "its backend did not take the grant (is it xdg-desktop-portal-wlr 0.6 or later?)")
            }
            return (grant, output)
        } catch {
            output.close()
            throw error
        }
    }

    /// The output an earlier cast on this sway left (sway 1.7), else a new one.
    private static func makeOutput(on sway: SwayConnection, socket: String) throws(CaptureError) -> String {
        let before = try sway.outputs()
        if let left = SwayOutputMemory.standard.output(leftOn: socket), before.contains(where: { $0.name == left }) {
            return left
        }
        try sway.run("create_output")
        let known = Set(before.map(\.name))
        guard let made = try sway.outputs().first(where: { !known.contains($0.name) }) else {
            throw CaptureError(.captureFailed, "sway made no output for the cast (create_output)")
        }
        return made.name
    }

    /// Shares the output through the portal with a grant written for it.
    private func share(
        through portal: ScreenCastPortal, store: PortalPermissionStore, configuration: ScreenCaptureConfiguration,
        isCancelled: () -> Bool
    ) throws(CaptureError) -> ScreenCastGrant {
        self.portal = portal
        let token = UUID().uuidString.lowercased()
        let restoreData = DBusValue.structure([
            .string("wlroots"), .uint32(1), .variant(.dictionary(["output_name": .string(self.name)])),
        ])
        do {
            try store.grant(token: token, restoreData: restoreData)
        } catch {
            throw CaptureError(
                .portalUnavailable, "the portal's permission store (xdg-permission-store) is not running",
                cause: error)
        }
        defer { store.remove(token: token) }
        let grant = try portal.start(
            showsCursor: configuration.showsCursor, restoreToken: token, timeout: configuration.portalTimeout,
            isCancelled: isCancelled)
        // The portal kept the share under a token of its own; it is not wanted again.
        if let kept = grant.restoreToken { store.remove(token: kept) }
        return grant
    }

    deinit {
        self.close()
    }

    /// Ends the share and takes the output away; idempotent.
    func close() {
        self.portal?.close()
        self.portal = nil
        guard !self.removed else { return }
        self.removed = true
        if (try? self.sway.run("output \(self.name) unplug")) != nil {
            SwayOutputMemory.standard.forget(leftOn: self.socket)
        } else {
            SwayOutputMemory.standard.remember(self.name, leftOn: self.socket)
        }
    }
}

/// The outputs casts left on sway instances that cannot remove them (1.7), by the
/// sway each is on (its IPC socket's path, which holds sway's process id),
/// in `$XDG_STATE_HOME/cast-sway-outputs`: a line per sway, the socket then
/// the output's name. A sway that is gone (its socket with it) is forgotten
/// at the next change. It held one line, so a cast on a second sway made
/// the first forget its output, and the next cast there made another: a
/// test of the second screen saw two when casts on two sway instances ran at once.
struct SwayOutputMemory {
    static let standard = SwayOutputMemory(fileURL: XDGDirectory.state.file("cast-sway-outputs"))
    let fileURL: URL

    /// The output left on the sway at `socket`, if one was.
    func output(leftOn socket: String) -> String? {
        self.entries()[socket]
    }

    func remember(_ name: String, leftOn socket: String) {
        var entries = self.entries()
        entries[socket] = name
        self.write(entries)
    }

    func forget(leftOn socket: String) {
        var entries = self.entries()
        guard entries.removeValue(forKey: socket) != nil else { return }
        self.write(entries)
    }

    /// The file's lines whose sway still runs (its socket is there), by socket.
    private func entries() -> [String: String] {
        guard let data = try? Data(contentsOf: self.fileURL) else { return [:] }
        var entries: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let words = line.split(separator: " ")
            guard words.count == 2, FileManager.default.fileExists(atPath: String(words[0])) else { continue }
            entries[String(words[0])] = String(words[1])
        }
        return entries
    }

    /// Replaces the file (at once: a reader sees the old lines or the new), or removes it when nothing is left.
    private func write(_ entries: [String: String]) {
        guard !entries.isEmpty else {
            try? FileManager.default.removeItem(at: self.fileURL)
            return
        }
        try? FileManager.default.createDirectory(
            at: self.fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
        let text = entries.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)\n" }.joined()
        try? Data(text.utf8).write(to: self.fileURL, options: .atomic)
    }
}
