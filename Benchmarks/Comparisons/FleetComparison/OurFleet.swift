import CastChannels
import CastDiscovery
import CastLogging
import CastTransport
import NIOConcurrencyHelpers

/// Our side: one `CastDeviceLink` per device, as an app watching every
/// device on a network would hold them, each with a task reading its
/// receiver's events as an app would.
final class OurFleet: Sendable {
    let links: [CastDeviceLink]
    private let watchers: [Task<Void, Never>]
    private let watch: LevelWatch

    private init(links: [CastDeviceLink], watchers: [Task<Void, Never>], watch: LevelWatch) {
        self.links = links
        self.watchers = watchers
        self.watch = watch
    }

    /// Connects to every port at once and reads each device's status, with
    /// the default device authentication (the challenge runs and its result
    /// is logged; cast-receiver's test chain does not verify against
    /// Google's roots). pychromecast authenticates nothing.
    static func connect(host: String, ports: [Int], logger: CastLogger) async throws -> OurFleet {
        let address = IPAddress(host)!
        let links = try await withThrowingTaskGroup(of: (Int, CastDeviceLink).self) { group in
            for (index, port) in ports.enumerated() {
                group.addTask {
                    let device = CastDevice(knownHost: address, port: port)
                    let link = try await CastDeviceLink.connect(to: device, logger: logger)
                    // Connected means the first status is in, as pychromecast's `wait()` means.
                    _ = try await link.receiver.requestStatus()
                    return (index, link)
                }
            }
            var links = [CastDeviceLink?](repeating: nil, count: ports.count)
            for try await (index, link) in group { links[index] = link }
            return links.compactMap { $0 }
        }
        let watch = LevelWatch(count: links.count)
        let watchers = links.enumerated().map { index, link in
            let events = link.receiver.events()
            return Task {
                for await event in events {
                    switch event {
                    case .volumeChanged(let volume): watch.seen(index, level: volume.level)
                    case .statusChanged(let status): watch.seen(index, level: status.volume.level)
                    case .launchStatusChanged: break
                    }
                }
            }
        }
        return OurFleet(links: links, watchers: watchers, watch: watch)
    }

    /// Asks every device for its status at once; when each answer arrived.
    func askStatus() async -> [UInt64?] {
        await withTaskGroup(of: (Int, UInt64?).self) { group in
            for (index, link) in self.links.enumerated() {
                group.addTask {
                    let answered = try? await link.receiver.requestStatus()
                    return (index, answered == nil ? nil : ProcessFigures.monotonicNanoseconds())
                }
            }
            var arrived = [UInt64?](repeating: nil, count: self.links.count)
            for await (index, stamp) in group { arrived[index] = stamp }
            return arrived
        }
    }

    /// Starts waiting for every device to report `level`.
    func expect(level: Double) { self.watch.expect(level) }

    /// When each device reported the expected level, once all have or `timeout` passed.
    func arrivals(within timeout: Duration) async -> [UInt64?] {
        let deadline = ContinuousClock.now + timeout
        while !self.watch.isComplete, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return self.watch.arrived
    }

    func close() async {
        for watcher in self.watchers { watcher.cancel() }
        await withTaskGroup(of: Void.self) { group in
            for link in self.links { group.addTask { await link.close() } }
        }
    }
}

/// When each device first reported a volume level, stamped on arrival.
final class LevelWatch: Sendable {
    private struct State {
        var level: Double?
        var arrived: [UInt64?]
        var remaining = 0
    }

    private let state: NIOLockedValueBox<State>

    init(count: Int) {
        self.state = NIOLockedValueBox(State(arrived: Array(repeating: nil, count: count)))
    }

    func expect(_ level: Double) {
        self.state.withLockedValue { state in
            state.level = level
            state.arrived = Array(repeating: nil, count: state.arrived.count)
            state.remaining = state.arrived.count
        }
    }

    func seen(_ index: Int, level: Double?) {
        let now = ProcessFigures.monotonicNanoseconds()
        self.state.withLockedValue { state in
            guard let expected = state.level, let level, abs(level - expected) < 1e-6,
                state.arrived[index] == nil
            else { return }
            state.arrived[index] = now
            state.remaining -= 1
        }
    }

    var isComplete: Bool { self.state.withLockedValue { $0.remaining == 0 } }
    var arrived: [UInt64?] { self.state.withLockedValue { $0.arrived } }
}
