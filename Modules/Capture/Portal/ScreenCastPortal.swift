import CDBus
package import CastDBus

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What the screen-cast portal granted: a PipeWire connection and the node
/// to read the pictures from.
struct ScreenCastGrant {
    /// A connected socket to the PipeWire remote the portal opened for us; ours to close.
    var pipeWireRemote: Int32
    /// The PipeWire node of the stream the user picked.
    var nodeID: UInt32
    /// The stream's size as the portal reports it (its format may say otherwise).
    var size: (width: Int, height: Int)?
    /// Passed next time, the portal grants the same source without asking.
    var restoreToken: String?
}

/// The XDG desktop portal's `org.freedesktop.portal.ScreenCast` interface,
/// the way a Wayland desktop lets an app see the screen: CreateSession →
/// SelectSources → Start (the desktop asks the user) → OpenPipeWireRemote.
/// Each request answers through a `Request.Response` signal, subscribed to
/// before the call so no answer is missed.
///
/// Specification: https://flatpak.github.io/xdg-desktop-portal/docs/doc-org.freedesktop.portal.ScreenCast.html
/// and `doc-org.freedesktop.portal.Request.html`; Chromium's
/// `modules/portal/screencast_portal.cc` makes the same calls.
//
// @unchecked Sendable: used by the thread that set the capture up, then
// only closed, by the capture's thread, once that one owns it.
package final class ScreenCastPortal: @unchecked Sendable {
    private static let service = "org.freedesktop.portal.Desktop"
    private static let objectPath = "/org/freedesktop/portal/desktop"
    private static let interface = "org.freedesktop.portal.ScreenCast"
    private static let requestInterface = "org.freedesktop.portal.Request"

    /// Source types (`types`, `AvailableSourceTypes`): a monitor or a window.
    private static let monitorAndWindow: UInt32 = 1 | 2
    /// Source type 4 (version 4 of the interface): a virtual monitor the backend makes for the share.
    private static let virtualMonitor: UInt32 = 4
    /// Cursor modes (`cursor_mode`, `AvailableCursorModes`).
    private static let cursorHidden: UInt32 = 1
    private static let cursorEmbedded: UInt32 = 2
    /// `persist_mode`: until the user revokes it.
    private static let persistUntilRevoked: UInt32 = 2

    private let bus: SessionBus
    private let requestPrefix: String
    private var requests = 0
    private var sessionHandle: String?

    /// Connects to the session bus at `busAddress` (`nil`: `DBUS_SESSION_BUS_ADDRESS`).
    ///
    /// - Throws: `CaptureError.Code.portalUnavailable` without a session bus.
    init(busAddress: String?) throws(CaptureError) {
        do {
            self.bus = try SessionBus(address: busAddress)
        } catch {
            throw CaptureError(.portalUnavailable, "no D-Bus session bus to reach the screen-cast portal", cause: error)
        }
        // Request objects live at …/request/SENDER/TOKEN, SENDER being the
        // unique name without its colon and with dots as underscores.
        let sender = String(self.bus.uniqueName.dropFirst().map { $0 == "." ? "_" : $0 })
        self.requestPrefix = Self.objectPath + "/request/" + sender + "/"
    }

    deinit {
        self.close()
    }

    /// Asks the desktop for one monitor or window (the user chooses, unless
    /// `restoreToken` names an earlier grant) and opens its PipeWire remote.
    ///
    /// - Throws: `CaptureError.Code.portalUnavailable` (no
    ///   portal, or it failed), `CaptureError.Code.permissionDenied`
    ///   (refused, or not answered within `timeout`),
    ///   `CaptureError.Code.pipeWireUnavailable`.
    ///
    /// With `virtual`, the backend makes a virtual monitor for the share
    /// (``offersVirtualMonitors()`` says whether it can), and the grant is not kept.
    func start(
        showsCursor: Bool, restoreToken: String?, virtual: Bool = false, timeout: Duration,
        isCancelled: () -> Bool
    ) throws(CaptureError) -> ScreenCastGrant {
        let deadline = ContinuousClock.now + timeout
        let version = try self.property("version") ?? 1
        let sourceTypes = try self.property("AvailableSourceTypes") ?? Self.monitorAndWindow

        let created = try self.request(
            "CreateSession", [], options: ["session_handle_token": .string(self.token())], until: deadline, isCancelled)
        guard let session = created["session_handle"]?.string else {
            throw CaptureError(.portalUnavailable, "the portal created a session without a handle")
        }
        self.sessionHandle = session

        var selection = try self.sourceSelection(
            sourceTypes: sourceTypes, version: version, showsCursor: showsCursor, restoreToken: restoreToken)
        if virtual {
            selection["types"] = .uint32(Self.virtualMonitor)
            selection["persist_mode"] = nil
        }
        try self.selectSources(session: session, options: selection, until: deadline, isCancelled)

        let started = try self.request(
            "Start", [.objectPath(session), .string("")], options: [:], until: deadline, isCancelled)
        guard let stream = Self.firstStream(in: started) else {
            throw CaptureError(.portalUnavailable, "the portal started a screen cast without a stream")
        }

        let descriptor = try self.openPipeWireRemote(session: session)
        return ScreenCastGrant(
            pipeWireRemote: descriptor, nodeID: stream.nodeID, size: stream.size,
            restoreToken: started["restore_token"]?.string)
    }

    /// Whether the portal makes virtual monitors (`AvailableSourceTypes` has
    /// 4); `false` also when there is no portal.
    func offersVirtualMonitors() -> Bool {
        guard let types = try? self.property("AvailableSourceTypes") else { return false }
        return types & Self.virtualMonitor != 0
    }

    /// SelectSources' options: one monitor or window of those the portal offers,
    /// the cursor as asked and a lasting grant (from `restoreToken`) where the portal can.
    private func sourceSelection(
        sourceTypes: UInt32, version: UInt32, showsCursor: Bool, restoreToken: String?
    ) throws(CaptureError) -> [String: DBusValue] {
        var selection: [String: DBusValue] = [
            "types": .uint32(
                sourceTypes & Self.monitorAndWindow == 0 ? Self.monitorAndWindow : sourceTypes & Self.monitorAndWindow),
            "multiple": .boolean(false),
        ]
        if version >= 2 {
            let cursorModes = try self.property("AvailableCursorModes") ?? 0
            let wanted = showsCursor ? Self.cursorEmbedded : Self.cursorHidden
            if cursorModes & wanted != 0 { selection["cursor_mode"] = .uint32(wanted) }
        }
        if version >= 4 {
            selection["persist_mode"] = .uint32(Self.persistUntilRevoked)
            if let restoreToken { selection["restore_token"] = .string(restoreToken) }
        }
        return selection
    }

    /// Calls SelectSources on `session` with `options`; when the portal
    /// refuses the restore token, calls it again without.
    private func selectSources(
        session: String, options: [String: DBusValue], until deadline: ContinuousClock.Instant,
        _ isCancelled: () -> Bool
    ) throws(CaptureError) {
        var selection = options
        do {
            _ = try self.request(
                "SelectSources", [.objectPath(session)], options: selection, until: deadline, isCancelled)
        } catch  where selection["restore_token"] != nil && Self.isInvalidArgument(error) {
            // The portal refused the token itself (xdg-desktop-portal's front end
            // takes only a UUID: "Restore token is not a valid UUID string"):
            // ask without it, so the user chooses again instead of the cast failing.
            selection["restore_token"] = nil
            _ = try self.request(
                "SelectSources", [.objectPath(session)], options: selection, until: deadline, isCancelled)
        }
    }

    /// Opens the PipeWire remote of the started `session`: a connected socket, ours to close.
    private func openPipeWireRemote(session: String) throws(CaptureError) -> Int32 {
        let remote: [DBusValue]
        do {
            remote = try self.bus.call(
                Self.service, path: Self.objectPath, interface: Self.interface, member: "OpenPipeWireRemote",
                arguments: [.objectPath(session), .dictionary([:])])
        } catch {
            throw CaptureError(.pipeWireUnavailable, "the portal could not open a PipeWire connection", cause: error)
        }
        guard case .fileDescriptor(let descriptor) = remote.first else {
            throw CaptureError(.pipeWireUnavailable, "the portal answered OpenPipeWireRemote without a descriptor")
        }
        return descriptor
    }

    /// Whether `error` is the portal refusing a call's arguments (`org.freedesktop.portal.Error.InvalidArgument`).
    private static func isInvalidArgument(_ error: CaptureError) -> Bool {
        (error.cause as? SessionBus.Failure)?.name == "org.freedesktop.portal.Error.InvalidArgument"
    }

    /// The first stream of Start's results — `streams`, `a(ua{sv})`: each a
    /// PipeWire node id and the stream's properties, `size` `(ii)` among
    /// them; `nil` when there is none or it is malformed.
    package static func firstStream(in results: [String: DBusValue]) -> (
        nodeID: UInt32, size: (width: Int, height: Int)?
    )? {
        guard let stream = results["streams"]?.elements?.first?.elements, stream.count == 2,
            let node = stream[0].integer, let nodeID = UInt32(exactly: node)
        else { return nil }
        let size = stream[1].dictionary?["size"]?.elements.flatMap { pair -> (width: Int, height: Int)? in
            guard pair.count == 2, let width = pair[0].integer, let height = pair[1].integer, width > 0, height > 0
            else { return nil }
            return (width, height)
        }
        return (nodeID, size)
    }

    /// A `Request.Response` signal's arguments — `u` code, `a{sv}` results —
    /// as the results when the code is 0 (granted), or the error it means.
    package static func results(ofResponse response: [DBusValue], to method: String) -> Result<
        [String: DBusValue], CaptureError
    > {
        guard let code = response.first?.integer else {
            return .failure(CaptureError(.portalUnavailable, "the portal answered \(method) without a response code"))
        }
        // The Request interface's codes: 0 success, 1 "the user cancelled the
        // interaction", 2 "the user interaction was ended in some other way" —
        // which is how a backend that cannot capture answers (xdg-desktop-portal-wlr
        // with no usable output or buffer format, for one): the desktop failed,
        // the user refused nothing.
        switch code {
        case 0:
            return .success(response.count > 1 ? response[1].dictionary ?? [:] : [:])
        case 1:
            return .failure(
                CaptureError(
                    .permissionDenied, "screen sharing was not granted: the user cancelled (\(method), response 1)"))
        default:
            return .failure(
                CaptureError(
                    .portalUnavailable,
                    "the desktop's screen-cast portal failed (\(method), response \(code)): its backend could not "
                        + "share the screen; its log (journalctl --user) says why"))
        }
    }

    /// Closes the portal session (the desktop stops the cast); idempotent.
    func close() {
        guard let session = self.sessionHandle else { return }
        self.sessionHandle = nil
        _ = try? self.bus.call(
            Self.service, path: session, interface: "org.freedesktop.portal.Session", member: "Close", arguments: [],
            timeout: .seconds(2))
    }

    // MARK: Requests

    /// A fresh token, valid in an object path.
    private func token() -> String {
        self.requests += 1
        return "cast\(getpid())_\(self.requests)"
    }

    /// Calls `method` with `arguments` then `options` plus a `handle_token`,
    /// and waits for its `Response`: the results on success.
    private func request(
        _ method: String, _ arguments: [DBusValue], options: [String: DBusValue],
        until deadline: ContinuousClock.Instant, _ isCancelled: () -> Bool
    ) throws(CaptureError) -> [String: DBusValue] {
        let token = self.token()
        var path = self.requestPrefix + token
        var options = options
        options["handle_token"] = .string(token)
        do {
            try self.bus.addMatch(
                "type='signal',interface='\(Self.requestInterface)',member='Response'")
            let reply = try self.bus.call(
                Self.service, path: Self.objectPath, interface: Self.interface, member: method,
                arguments: arguments + [.dictionary(options)])
            // Portals before 0.9 chose the request path themselves.
            if let returned = reply.first?.string { path = returned }
            guard
                let response = try self.bus.waitForSignal(
                    interface: Self.requestInterface, member: "Response", path: path, until: deadline,
                    isCancelled: isCancelled)
            else {
                throw CaptureError(.permissionDenied, "the screen-cast portal did not answer \(method) in time")
            }
            return try Self.results(ofResponse: response, to: method).get()
        } catch let error as SessionBus.Failure {
            throw CaptureError(.portalUnavailable, "the screen-cast portal failed \(method)", cause: error)
        } catch let error as CaptureError {
            throw error
        } catch {
            throw CaptureError(.portalUnavailable, "the screen-cast portal failed \(method)", cause: error)
        }
    }

    /// A `u` property of the ScreenCast interface; `nil` when the portal does not have it.
    private func property(_ name: String) throws(CaptureError) -> UInt32? {
        do {
            let reply = try self.bus.call(
                Self.service, path: Self.objectPath, interface: "org.freedesktop.DBus.Properties", member: "Get",
                arguments: [.string(Self.interface), .string(name)])
            return reply.first?.integer.flatMap { UInt32(exactly: $0) }
        } catch  where error.name == "org.freedesktop.DBus.Error.InvalidArgs" {
            return nil
        } catch {
            throw CaptureError(
                .portalUnavailable,
                "no screen-cast portal on the session bus (xdg-desktop-portal with a backend for this desktop is needed)",
                cause: error)
        }
    }
}
