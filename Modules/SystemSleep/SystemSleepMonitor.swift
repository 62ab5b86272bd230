import CastDBus
public import CastKit
import Foundation
import NIOConcurrencyHelpers

/// Keeps the Cast session through the machine's sleep: logind's
/// `PrepareForSleep` signal on the system bus suspends the session cleanly
/// before the machine sleeps (`SessionManager.suspendForSleep()`)
/// and reconnects it at once when it wakes (`SessionManager.resumeAfterWake()`).
///
/// The iOS SDK suspends a session when its app goes to the background and
/// resumes it in the foreground; Linux never suspends a background process,
/// and the moment a session is cut off is the machine's sleep. Without the
/// monitor a sleeping machine's session still comes back, but only after
/// its heartbeat times out at wake and a back-off begins.
///
/// Only signals from the owner of `org.freedesktop.login1` are heard, so
/// another program cannot suspend a session: the match rule names that
/// sender, and each signal's sender is checked too, since the bus delivers
/// a signal sent straight to our connection whatever the rules say.
///
/// ```swift
/// let monitor = try SystemSleepMonitor(sessionManager: context.sessionManager)
/// // … the laptop sleeps and wakes; the session comes back …
/// monitor.close()
/// ```
public final class SystemSleepMonitor: Sendable {
    /// The system bus: `DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket.
    public static var systemBusAddress: String {
        ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"] ?? "unix:path=/run/dbus/system_bus_socket"
    }

    private static let interface = "org.freedesktop.login1.Manager"
    private static let path = "/org/freedesktop/login1"

    private let stopped = NIOLockedValueBox(false)
    private let acting: Task<Void, Never>

    /// Starts listening.
    ///
    /// - Parameters:
    ///   - sessionManager: whose session sleeps and wakes with the machine.
    ///   - busAddress: the bus logind is on; `nil` for ``systemBusAddress``.
    /// - Throws: ``SystemSleepError/Code-swift.enum/busUnavailable`` when the bus cannot be reached.
    public init(sessionManager: SessionManager, busAddress: String? = nil) throws(SystemSleepError) {
        let bus: SessionBus
        do {
            bus = try SessionBus(address: busAddress ?? Self.systemBusAddress)
            try bus.addMatch(
                "type='signal',sender='org.freedesktop.login1',interface='\(Self.interface)',"
                    + "member='PrepareForSleep',path='\(Self.path)'")
        } catch {
            throw SystemSleepError(.busUnavailable, error.description)
        }
        // The bus is read on a thread of its own (libdbus blocks); the session
        // is told in order, one change after the other, from one task.
        let (changes, continuation) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .bufferingNewest(8))
        let stopped = self.stopped
        let reader = Thread {
            while !stopped.withLockedValue({ $0 }) {
                let arguments: [DBusValue]?
                do {
                    arguments = try bus.waitForSignal(
                        interface: Self.interface, member: "PrepareForSleep", path: Self.path,
                        sender: "org.freedesktop.login1", until: .now + .seconds(1),
                        isCancelled: { stopped.withLockedValue { $0 } })
                } catch {
                    break  // the bus went away
                }
                if case .boolean(let goingToSleep)? = arguments?.first { continuation.yield(goingToSleep) }
            }
            continuation.finish()
        }
        reader.name = "cast.sleep"
        reader.start()
        self.acting = Task {
            for await goingToSleep in changes {
                if goingToSleep {
                    await sessionManager.suspendForSleep()
                } else {
                    await sessionManager.resumeAfterWake()
                }
            }
        }
    }

    deinit {
        self.close()
    }

    /// Stops listening (within a second).
    public func close() {
        self.stopped.withLockedValue { $0 = true }
    }
}
