public import CastKit
import NIOConcurrencyHelpers

/// What the Cast button shows: the SDK's `GCKCastState`.
public enum CastState: Sendable, Hashable {
    /// No device found: the button hides (or shows disabled).
    case noDevicesAvailable
    /// Devices found, no session.
    case notConnected
    /// A session is starting, or reconnecting.
    case connecting
    /// A session runs.
    case connected

    /// The state for `deviceCount` devices found and a session in `sessionState`.
    public init(deviceCount: Int, sessionState: CastSession.State?) {
        switch sessionState {
        case .starting?, .suspended?: self = .connecting
        case .connected?, .ending?: self = .connected
        case .ended?, nil: self = deviceCount > 0 ? .notConnected : .noDevicesAvailable
        }
    }
}

/// The Cast button's state and the device it names.
public struct CastButtonState: Sendable, Hashable {
    /// What the button shows.
    public var castState: CastState
    /// The session's device, while connecting or connected.
    public var deviceName: String?
    /// Whether to show the button. As the SDK does since 4.6, it shows
    /// whenever discovery queries on an interface (a network that can have
    /// devices), with no devices found too — then disabled, its label saying
    /// so — and hides only with no network and no session.
    public var isVisible: Bool

    /// Creates a state.
    public init(castState: CastState, deviceName: String? = nil, isVisible: Bool? = nil) {
        self.castState = castState
        self.deviceName = deviceName
        self.isVisible = isVisible ?? (castState != .noDevicesAvailable)
    }

    /// What the button says to a screen reader or as a tooltip: "No Cast
    /// devices found", "Cast to a device", "Connecting to Kitchen…", "Casting to Kitchen".
    public var label: String {
        switch self.castState {
        case .noDevicesAvailable: "No Cast devices found"
        case .notConnected: "Cast to a device"
        case .connecting: self.deviceName.map { "Connecting to \($0)…" } ?? "Connecting…"
        case .connected: self.deviceName.map { "Casting to \($0)" } ?? "Casting"
        }
    }
}

/// The Cast button's state, from the devices that can run the app, the
/// interfaces discovery queries on, and the session: the SDK's
/// `GCKUICastButton` without the view.
///
/// ```swift
/// let button = CastButtonModel(context: context)
/// for await state in button.updates() {
///     icon = state.castState == .connected ? "cast-connected" : "cast"
/// }
/// ```
public final class CastButtonModel: Sendable {
    private let state = PublishedState(CastButtonState(castState: .noDevicesAvailable))
    private let following = FollowingTask()

    /// Creates a model following `context`'s devices that can run the app
    /// (`CastContext.applicationDevices`, the list the device
    /// chooser shows) and its session.
    public init(context: CastContext) {
        let devices = context.applicationDevices.updates()
        let sessions = context.sessionManager.sessionUpdates()
        let interfaces = context.discoveryManager.interfaceUpdates()
        let applicationDevices = context.applicationDevices
        let state = self.state
        self.following.start {
            let current = NIOLockedValueBox<(session: CastSession?, onNetwork: Bool)>((nil, false))
            let publish: @Sendable () -> Void = {
                let (session, onNetwork) = current.withLockedValue { $0 }
                let castState = CastState(
                    deviceCount: applicationDevices.devices.count, sessionState: session?.state)
                let name = castState == .connecting || castState == .connected ? session?.device.friendlyName : nil
                state.update {
                    $0 = CastButtonState(
                        castState: castState, deviceName: name,
                        isVisible: onNetwork || castState != .noDevicesAvailable)
                }
            }
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await _ in devices { publish() }
                }
                group.addTask {
                    for await queried in interfaces {
                        current.withLockedValue { $0.onNetwork = !queried.isEmpty }
                        publish()
                    }
                }
                group.addTask {
                    for await session in sessions {
                        current.withLockedValue { $0.session = session }
                        publish()
                    }
                }
                await group.waitForAll()
            }
        }
    }

    /// Stops following.
    public func close() {
        self.following.cancel()
    }

    /// The state now.
    public var buttonState: CastButtonState { self.state.current }

    /// The state now, then each change; each call gives a new, independent stream.
    public func updates() -> AsyncStream<CastButtonState> {
        self.state.updates()
    }
}
