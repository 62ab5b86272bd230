import CastDiscovery
import CastLogging

/// Our discovery with N devices answering: a `DiscoveryManager` browsing
/// one interface from a cold start until it has found every device.
enum OurBrowse {
    /// Seconds until `count` devices are known (nil if not within `timeout`),
    /// the devices found, and the resident memory the browse added (KiB).
    static func measure(interface: String, count: Int, timeout: Duration, logger: CastLogger) async throws
        -> (seconds: Double?, found: Int, residentKiB: Int)
    {
        let before = ProcessFigures.current()
        let manager = DiscoveryManager(
            configuration: DiscoveryConfiguration(interfaces: .named([interface]), addressFamilies: .ipv4),
            logger: logger)
        let events = manager.events()
        let started = ContinuousClock.now
        try await manager.start()
        let found = await withTaskGroup(of: Int?.self) { group in
            group.addTask {
                var ids = Set<String>()
                for await event in events {
                    if case .found(let device) = event { ids.insert(device.id) }
                    if ids.count >= count { return ids.count }
                }
                return ids.count
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        let elapsed = ContinuousClock.now - started
        let devices = await manager.devices.count
        let after = ProcessFigures.current()
        await manager.stop()
        let seconds =
            found == nil ? nil : Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return (seconds, devices, after.residentKiB - before.residentKiB)
    }
}
