public import CastLogging
import Foundation

extension DiscoveryManager {
    /// Browses with `configuration` until a device that `matches` is found
    /// or `timeout` passes: the device, or `nil`. Discovery is stopped either way.
    ///
    /// - Throws: ``DiscoveryError`` when discovery cannot start (no usable
    ///   interface); `CancellationError` when the calling task is cancelled.
    public static func firstDevice(
        configuration: DiscoveryConfiguration = DiscoveryConfiguration(), within timeout: Duration,
        logger: CastLogger = .shared, where matches: @escaping @Sendable (CastDevice) -> Bool
    ) async throws -> CastDevice? {
        let manager = DiscoveryManager(configuration: configuration, logger: logger)
        let events = manager.events()
        try await manager.start()
        let found = await withTaskGroup(of: CastDevice?.self) { group in
            group.addTask {
                for await case .found(let device) in events where matches(device) { return device }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        await manager.stop()
        try Task.checkCancellation()
        return found
    }

    /// The first device whose friendly name or id is `name` (either case),
    /// browsing with `configuration` for at most `timeout`; `nil` when none answers in time.
    ///
    /// - Throws: as ``firstDevice(configuration:within:logger:where:)``.
    public static func firstDevice(
        named name: String, configuration: DiscoveryConfiguration = DiscoveryConfiguration(),
        within timeout: Duration, logger: CastLogger = .shared
    ) async throws -> CastDevice? {
        try await Self.firstDevice(configuration: configuration, within: timeout, logger: logger) { device in
            device.friendlyName.caseInsensitiveCompare(name) == .orderedSame
                || device.id.caseInsensitiveCompare(name) == .orderedSame
        }
    }
}
