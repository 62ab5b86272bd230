import CDBus
import CastCapture
import CastDBus
import Foundation

/// What the screen-cast portal sends back over D-Bus, on the capture side:
/// a whole message demarshalled by libdbus (which validates it), read into
/// `DBusValue`s, then taken as a `Request.Response` and as Start's results.
///
/// The seed corpus is every reply, error and portal signal of one
/// `cast screen --capture portal` run against the portal stand-in
/// (Tests/CastTestSupport/screencast_portal.py), recorded with
/// `dbus-monitor --binary` and split into messages.
func fuzzPortalReply(_ bytes: [UInt8]) {
    guard let message = DBusValue.message(demarshalling: bytes) else { return }
    defer { dbus_message_unref(message) }
    let arguments = DBusValue.arguments(of: message)
    if case .success(let results) = ScreenCastPortal.results(ofResponse: arguments, to: "Start") {
        _ = ScreenCastPortal.firstStream(in: results)
        _ = results["restore_token"]?.string
    }
}
