import CDBus
import CastCapture
import CastDBus
import Foundation

/// What the desktop sends back to the capture side: the screen-cast
/// portal over D-Bus — a whole message demarshalled by libdbus (which
/// validates it), read into `DBusValue`s, then taken as a `Request.Response`
/// and as Start's results — and sway over its IPC socket (input starting
/// `i3-ipc`): a reply's header, then its payload as outputs and as command results.
///
/// The seed corpus is every reply, error and portal signal of one
/// `cast screen --capture portal` run against the portal stand-in
/// (Tests/CastTestSupport/screencast_portal.py), recorded with
/// `dbus-monitor --binary` and split into messages, and sway 1.7's replies
/// to `GET_OUTPUTS`, `create_output` and a command it refused (`sway-*`).
func fuzzPortalReply(_ bytes: [UInt8]) {
    if bytes.starts(with: Array("i3-ipc".utf8)) {
        fuzzSwayReply(bytes)
        return
    }
    guard let message = DBusValue.message(demarshalling: bytes) else { return }
    defer { dbus_message_unref(message) }
    let arguments = DBusValue.arguments(of: message)
    if case .success(let results) = ScreenCastPortal.results(ofResponse: arguments, to: "Start") {
        _ = ScreenCastPortal.firstStream(in: results)
        _ = results["restore_token"]?.string
    }
}

private func fuzzSwayReply(_ bytes: [UInt8]) {
    let header = Array(bytes.prefix(SwayIPC.headerSize))
    let payload = Array(bytes.dropFirst(SwayIPC.headerSize))
    for type in [SwayIPC.MessageType.getOutputs, .runCommand] {
        guard let length = try? SwayIPC.payloadLength(ofHeader: header, answering: type) else { continue }
        guard length <= SwayIPC.maximumPayload else { fatalError("a reply of \(length) bytes passed the bound") }
    }
    _ = try? SwayIPC.outputs(inReply: payload)
    _ = try? SwayIPC.commandResults(inReply: payload)
}
