import CastDBus
import Dispatch
import NIOConcurrencyHelpers

/// Desktop notifications (`org.freedesktop.Notifications`, the Desktop
/// Notifications Specification every Linux desktop implements) for what a
/// user must know: mirroring started or stopped, a device lost, a failure
/// and its reason. Each notification replaces the app's previous one, so a
/// start and its stop do not pile up.
public final class DesktopNotifier: Sendable {
    private static let service = "org.freedesktop.Notifications"
    private static let path = "/org/freedesktop/Notifications"

    private let bus: SessionBus
    private let applicationName: String
    private let iconName: String
    private let lastID = NIOLockedValueBox<UInt32>(0)
    private let queue = DispatchQueue(label: "cast.notifications")

    /// Connects to the bus at `busAddress` (`nil`: the session bus).
    ///
    /// - Parameters:
    ///   - applicationName: the sender the desktop names (`app_name`).
    ///   - iconName: the icon shown beside each notification (an icon theme name).
    ///   - busAddress: the bus to use; `nil` for the session bus.
    /// - Throws: ``TrayError/Code/busUnavailable`` without a session bus.
    public init(applicationName: String = "Cast", iconName: String = "cast", busAddress: String? = nil)
        throws(TrayError)
    {
        do {
            self.bus = try SessionBus(address: busAddress)
        } catch {
            throw TrayError(.busUnavailable, error.description)
        }
        self.applicationName = applicationName
        self.iconName = iconName
    }

    /// Shows `summary` with `body`, replacing the previous notification; the desktop's id for it.
    /// - Throws: ``TrayError/Code/notificationFailed`` when no notification service answers.
    @discardableResult
    public func notify(_ summary: String, body: String = "") async throws(TrayError) -> UInt32 {
        let result: Result<UInt32, TrayError> = await withCheckedContinuation { continuation in
            self.queue.async {
                continuation.resume(returning: self.send(summary, body: body))
            }
        }
        return try result.get()
    }

    /// Notify(app_name s, replaces_id u, app_icon s, summary s, body s, actions as, hints a{sv}, expire_timeout i).
    private func send(_ summary: String, body: String) -> Result<UInt32, TrayError> {
        let replaces = self.lastID.withLockedValue { $0 }
        do {
            let reply = try self.bus.call(
                Self.service, path: Self.path, interface: Self.service, member: "Notify",
                arguments: [
                    .string(self.applicationName), .uint32(replaces), .string(self.iconName), .string(summary),
                    .string(body), .typedArray(elementSignature: "s", []), .dictionary([:]), .int32(-1),
                ], timeout: .seconds(5))
            guard case .uint32(let id)? = reply.first else {
                return .failure(TrayError(.notificationFailed, "Notify answered \(reply), not an id"))
            }
            self.lastID.withLockedValue { $0 = id }
            return .success(id)
        } catch {
            return .failure(TrayError(.notificationFailed, error.description))
        }
    }
}
