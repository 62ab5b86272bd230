public import CastDiscovery
import NIOConcurrencyHelpers
public import NIOCore
import NIOPosix

/// Each device's details (manufacturer, model) as its setup server tells
/// them, asked once per device and remembered: what the SDK's device picker
/// shows beside a name (`GCKDevice.manufacturer`).
///
/// Asking is what `CastDeviceDetails.fetch(for:configuration:on:)`
/// does: HTTPS, then HTTP, each bounded in time and size. Calls for a device
/// being asked wait for the one answer; a device that could not be asked is
/// remembered as such too (asked again only once it is forgotten), so a
/// chooser reopened does not ask again. At most ``capacity`` devices are
/// remembered, the longest unused forgotten first.
///
/// ```swift
/// if let details = await context.deviceDetails.details(for: device) {
///     subtitle = [details.manufacturer, details.modelName].compactMap { $0 }.joined(separator: " ")
/// }
/// ```
public final class DeviceDetailsDirectory: Sendable {
    private struct State {
        var answers: [String: CastDeviceDetails?] = [:]
        var asking: [String: Task<CastDeviceDetails?, Never>] = [:]
        /// Device ids, the most recently used last.
        var order: [String] = []
    }

    /// How many devices' details are remembered.
    public static let capacity = 256

    private let configuration: CastDeviceDetails.FetchConfiguration?
    private let eventLoop: any EventLoop
    private let state = NIOLockedValueBox(State())

    /// Creates a directory asking with `configuration` (`nil`: never asks,
    /// every answer `nil`), its sockets on `eventLoop` (`nil`: one of NIO's shared loops).
    public init(configuration: CastDeviceDetails.FetchConfiguration?, eventLoop: (any EventLoop)? = nil) {
        self.configuration = configuration
        self.eventLoop = eventLoop ?? MultiThreadedEventLoopGroup.singleton.next()
    }

    /// The details remembered for `device`, without asking; `nil` when not
    /// asked yet, still being asked, or when it could not be asked.
    public func knownDetails(for device: CastDevice) -> CastDeviceDetails? {
        self.state.withLockedValue { $0.answers[device.id] ?? nil }
    }

    /// `device`'s details: remembered, or asked now. `nil` when the device
    /// cannot be asked (a group, no setup server, a malformed answer) or
    /// asking is off (``CastOptions/deviceDetails`` `nil`).
    public func details(for device: CastDevice) async -> CastDeviceDetails? {
        guard let configuration = self.configuration else { return nil }
        let loop = self.eventLoop
        let task: Task<CastDeviceDetails?, Never> = self.state.withLockedValue { state in
            Self.touch(device.id, in: &state)
            if let answer = state.answers[device.id] { return Task { answer } }
            if let asking = state.asking[device.id] { return asking }
            let asking = Task<CastDeviceDetails?, Never> {
                try? await CastDeviceDetails.fetch(for: device, configuration: configuration, on: loop)
            }
            state.asking[device.id] = asking
            return asking
        }
        let answer = await task.value
        self.state.withLockedValue { state in
            guard state.asking[device.id] != nil else { return }
            state.asking[device.id] = nil
            state.answers[device.id] = .some(answer)
            while state.order.count > Self.capacity {
                let oldest = state.order.removeFirst()
                state.answers[oldest] = nil
            }
        }
        return answer
    }

    /// Forgets `device`'s details, so the next ``details(for:)`` asks again.
    public func forget(_ device: CastDevice) {
        self.state.withLockedValue { state in
            state.answers[device.id] = nil
            state.order.removeAll { $0 == device.id }
        }
    }

    private static func touch(_ id: String, in state: inout State) {
        state.order.removeAll { $0 == id }
        state.order.append(id)
    }
}
