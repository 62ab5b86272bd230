import CastCommon
import Foundation
import Logging
import NIOCore

/// The state behind a ``DiscoveryManager``, confined to its event loop:
/// the sockets per interface, the engine, its timer, known hosts, the filter
/// and the list as last published.
final class DiscoveryRuntime {
    private struct SocketKey: Hashable {
        var index: Int
        var family: UInt8
    }

    private(set) var configuration: DiscoveryConfiguration
    private let eventLoop: any EventLoop
    private let broadcaster: DeviceListBroadcaster
    private let interfaces: EventBroadcaster<[String]>
    /// What ``publishInterfaces()`` told last.
    private var lastInterfaces: [String] = []
    private let logger: Logger
    private var engine: BrowserEngine
    private var filter: DeviceFilter
    private var receiver: MDNSSocket.Receiver?
    private var sockets: [SocketKey: MDNSSocket] = [:]
    private var opening: Set<SocketKey> = []
    private var timer: Scheduled<Void>?
    private var poller: Scheduled<Void>?
    private var unicastRefresher: Scheduled<Void>?
    private var watcher: InterfaceWatcher?
    private var knownHosts: [String: CastDevice] = [:]
    /// Devices found by unicast, by instance name (or `unicast:` and the id when known by address alone).
    private var unicast: [String: CastDevice] = [:]
    /// How many asks in a row each of `unicast` left unanswered.
    private var unicastMisses: [String: Int] = [:]
    /// The devices last published, by instance name or known-host id.
    private var visible: [String: CastDevice] = [:]

    static let serviceType = DNSName("_googlecast._tcp.local")

    init(
        configuration: DiscoveryConfiguration, eventLoop: any EventLoop, broadcaster: DeviceListBroadcaster,
        interfaces: EventBroadcaster<[String]>, logger: Logger
    ) {
        self.configuration = configuration
        self.eventLoop = eventLoop
        self.broadcaster = broadcaster
        self.interfaces = interfaces
        self.logger = logger
        self.filter = configuration.filter
        self.engine = Self.makeEngine(configuration)
    }

    private static func makeEngine(_ configuration: DiscoveryConfiguration) -> BrowserEngine {
        BrowserEngine(
            serviceType: Self.serviceType,
            scanMode: configuration.scanMode,
            timing: BrowserEngine.Timing(
                activeMaximumQueryInterval: TimeAmount(configuration.activeMaximumQueryInterval),
                passiveMaximumQueryInterval: TimeAmount(configuration.passiveMaximumQueryInterval)
            )
        )
    }

    private var isRunning: Bool { self.receiver != nil }

    // MARK: Lifecycle

    func start(receiver: @escaping MDNSSocket.Receiver) -> EventLoopFuture<Void> {
        guard !self.isRunning else {
            return self.eventLoop.makeFailedFuture(DiscoveryError(.alreadyStarted, "discovery is already running"))
        }
        self.receiver = receiver
        self.engine = Self.makeEngine(self.configuration)
        self.logger.info("discovery starting", metadata: ["mdns.interfaces": "\(self.configuration.interfaces)"])
        return self.pollInterfaces().assumeIsolated().flatMapThrowing { opened in
            if opened.attempted > 0 && opened.succeeded == 0 {
                self.stopNow()
                throw DiscoveryError(
                    .socketFailed, "no mDNS socket could be opened on \(opened.attempted) interface(s)")
            }
            self.schedulePoll()
            self.scheduleUnicastRefresh()
            self.watchInterfaces()
            self.askCachedAddresses()
        }.nonisolated()
    }

    /// Looks at the interfaces as soon as the kernel says one changed; the poll stays as a fallback
    /// where rtnetlink cannot be opened.
    private func watchInterfaces() {
        let box = NIOLoopBound(self, eventLoop: self.eventLoop)
        InterfaceWatcher.open(on: self.eventLoop) {
            box.value.pollInterfaces()
        }.assumeIsolated().whenComplete { result in
            switch result {
            case .success(let watcher):
                guard self.isRunning, self.watcher == nil else {
                    watcher.close().whenComplete { _ in }
                    return
                }
                self.watcher = watcher
            case .failure(let error):
                self.logger.warning(
                    "interface changes not watched; polling instead",
                    metadata: ["error": "\(error)", "mdns.poll": "\(self.configuration.interfacePollInterval)"])
            }
        }
    }

    /// Asks each address the device cache remembers for its device, by unicast DNS-SD: the
    /// device's own answer is listed (source ``CastDevice/Source/unicast``), never the entry.
    private func askCachedAddresses() {
        guard let cache = self.configuration.deviceCache else { return }
        let logger = self.logger
        for entry in cache.entries {
            for address in entry.addresses.compactMap(IPAddress.init) {
                UnicastQuery.devices(
                    at: address, eventLoop: self.eventLoop, timeout: UnicastQuery.timeout, logger: logger
                ).assumeIsolated().whenSuccess { devices in
                    guard self.isRunning else { return }
                    self.addUnicast(devices.filter { $0.id == entry.id })
                }
            }
        }
    }

    /// Looks at the interfaces again after the poll interval, and so on while running.
    private func schedulePoll() {
        guard self.isRunning else { return }
        let interval = TimeAmount(self.configuration.interfacePollInterval)
        self.poller = self.eventLoop.assumeIsolated().scheduleTask(in: interval) {
            self.pollInterfaces().assumeIsolated().whenComplete { _ in self.schedulePoll() }
        }
    }

    /// Asks the devices found by unicast again after the refresh interval, and so on while running.
    private func scheduleUnicastRefresh() {
        guard self.isRunning else { return }
        // At least 100 ms: a zero or negative interval must not spin the loop.
        let interval = TimeAmount(max(self.configuration.unicastRefreshInterval, .milliseconds(100)))
        self.unicastRefresher = self.eventLoop.assumeIsolated().scheduleTask(in: interval) {
            self.refreshUnicast()
            self.scheduleUnicastRefresh()
        }
    }

    /// Asks each device found by unicast at its address, as it was found: its DNS-SD records,
    /// or — for one known by its address alone — its Cast port, probed as the scan probed it.
    /// Its answer updates it; one that left this ask and the one before unanswered is lost as
    /// expired. mDNS has no say here: its records of the same instance keep it listed as long
    /// as they live.
    private func refreshUnicast() {
        for (name, device) in self.unicast {
            self.ask(device).assumeIsolated().whenSuccess { answers in
                guard self.isRunning, self.unicast[name] != nil else { return }
                let answer = answers.filter { $0.id == device.id }
                guard answer.isEmpty else {
                    self.unicastMisses[name] = nil
                    self.addUnicast(answer)
                    return
                }
                let misses = self.unicastMisses[name, default: 0] + 1
                self.unicastMisses[name] = misses
                if misses >= 2 {
                    self.publish(lossReasons: [name: .expired], defaultLoss: .removed)
                }
            }
        }
    }

    /// What `device`'s host says of itself now (none when it does not answer).
    private func ask(_ device: CastDevice) -> EventLoopFuture<[CastDevice]> {
        let addresses = device.addresses
        let v4 = addresses.lazy.compactMap { address -> IPAddress.V4? in
            if case .v4(let v4) = address { v4 } else { nil }
        }.first
        if device.instanceName.isEmpty, let v4 {
            let probe = SubnetScanConfiguration(
                port: device.port, queryTimeout: .nanoseconds(UnicastQuery.timeout.nanoseconds))
            return SubnetScan(configuration: probe, eventLoop: self.eventLoop, logger: self.logger).probe(v4)
        }
        guard let address = v4.map(IPAddress.v4) ?? addresses.first else {
            return self.eventLoop.makeSucceededFuture([])
        }
        return UnicastQuery.devices(
            at: address, eventLoop: self.eventLoop, timeout: UnicastQuery.timeout, logger: self.logger)
    }

    func stop() -> EventLoopFuture<Void> {
        guard self.isRunning else { return self.eventLoop.makeSucceededVoidFuture() }
        return self.stopNow()
    }

    @discardableResult
    private func stopNow() -> EventLoopFuture<Void> {
        self.receiver = nil
        self.poller?.cancel()
        self.poller = nil
        self.unicastRefresher?.cancel()
        self.unicastRefresher = nil
        self.watcher?.close().whenComplete { _ in }
        self.watcher = nil
        self.unicast.removeAll()
        self.unicastMisses.removeAll()
        self.timer?.cancel()
        self.timer = nil
        let closing = self.sockets.values.map { $0.close() }
        self.sockets.removeAll()
        self.publishInterfaces()
        self.engine = Self.makeEngine(self.configuration)
        self.publish(lossReasons: [:], defaultLoss: .stopped)
        self.logger.info("discovery stopped")
        return EventLoopFuture.andAllComplete(closing, on: self.eventLoop)
    }

    // MARK: Interfaces

    /// The names of the interfaces with an mDNS socket open, sorted.
    var queriedInterfaces: [String] {
        Set(self.sockets.values.map(\.interface.name)).sorted()
    }

    /// Tells listeners of ``DiscoveryManager/interfaceUpdates()`` the interfaces now queried, when they changed.
    private func publishInterfaces() {
        let now = self.queriedInterfaces
        guard now != self.lastInterfaces else { return }
        self.lastInterfaces = now
        self.interfaces.yield(now)
    }

    /// Opens sockets on selected interfaces that lack them and closes those whose interface left.
    /// Reports how many sockets it tried to open and how many opened.
    @discardableResult
    func pollInterfaces() -> EventLoopFuture<(attempted: Int, succeeded: Int)> {
        guard let receiver = self.receiver else { return self.eventLoop.makeSucceededFuture((0, 0)) }
        let selected = NetworkInterface.all().filter { self.configuration.interfaces.includes($0) }
        var wanted: [SocketKey: (NetworkInterface, AddressFamilies)] = [:]
        for interface in selected {
            if self.configuration.addressFamilies.contains(.ipv4), !interface.ipv4Addresses.isEmpty {
                wanted[SocketKey(index: interface.index, family: AddressFamilies.ipv4.rawValue)] = (interface, .ipv4)
            }
            if self.configuration.addressFamilies.contains(.ipv6), !interface.ipv6Addresses.isEmpty {
                wanted[SocketKey(index: interface.index, family: AddressFamilies.ipv6.rawValue)] = (interface, .ipv6)
            }
        }
        for (key, socket) in self.sockets where wanted[key] == nil {
            self.logger.info("interface gone", metadata: ["mdns.interface": "\(socket.interface)"])
            self.sockets.removeValue(forKey: key)
            self.publishInterfaces()
            socket.close().whenComplete { _ in }
            if !self.sockets.keys.contains(where: { $0.index == key.index }) {
                self.apply(self.engine.removeInterface(index: key.index, now: .now()))
            }
        }
        let toOpen = wanted.filter { self.sockets[$0.key] == nil && !self.opening.contains($0.key) }
        let attempts = toOpen.map { key, value in
            self.opening.insert(key)
            let (interface, family) = value
            return MDNSSocket.open(
                on: interface,
                family: family,
                port: self.configuration.port,
                eventLoop: self.eventLoop,
                logger: self.logger,
                receiver: receiver
            ).assumeIsolated().map { socket -> Bool in
                self.opening.remove(key)
                guard self.isRunning else {
                    socket.close().whenComplete { _ in }
                    return false
                }
                self.sockets[key] = socket
                self.publishInterfaces()
                self.logger.info(
                    "querying on interface",
                    metadata: ["mdns.interface": "\(interface)", "mdns.family": "\(family == .ipv6 ? "ipv6" : "ipv4")"])
                // A new interface, or its other IP version: either way, ask afresh there.
                self.engine.addInterface(
                    index: interface.index, name: interface.name, scope: interface.addressScope, now: .now())
                self.apply(BrowserEngine.Step())
                return true
            }.recover { error -> Bool in
                self.opening.remove(key)
                self.logger.warning(
                    "cannot open mDNS socket", metadata: ["mdns.interface": "\(interface)", "error": "\(error)"])
                return false
            }.nonisolated()
        }
        return EventLoopFuture.whenAllSucceed(attempts, on: self.eventLoop).map { results in
            (results.count, results.filter { $0 }.count)
        }
    }

    // MARK: Inputs

    func receive(_ message: DNSMessage, from source: SocketAddress, interfaceIndex: Int) {
        guard self.isRunning else { return }
        self.apply(
            self.engine.receive(message, interfaceIndex: interfaceIndex, sourcePort: source.port ?? 0, now: .now()))
    }

    /// Switches the running engine, and the mode a later start begins in.
    func setScanMode(_ mode: ScanMode) {
        self.configuration.scanMode = mode
        self.apply(self.engine.setScanMode(mode, now: .now()))
    }

    func setFilter(_ filter: DeviceFilter) {
        self.filter = filter
        self.publish(lossReasons: [:], defaultLoss: .filteredOut)
    }

    func addKnownHost(_ device: CastDevice) {
        self.knownHosts[device.id] = device
        self.publish(lossReasons: [:], defaultLoss: .removed)
    }

    func removeKnownHost(id: String) {
        self.knownHosts.removeValue(forKey: id)
        self.publish(lossReasons: [:], defaultLoss: .removed)
    }

    /// Fills in a known host from its own DNS-SD answer: its id, name, model and capabilities.
    func resolveKnownHost(id: String, with devices: [CastDevice]) {
        guard let host = self.knownHosts[id],
            var device = devices.first(where: { $0.port == host.port }) ?? devices.first
        else { return }
        device.source = .knownHost
        self.knownHosts[id] = device
        self.publish(lossReasons: [:], defaultLoss: .removed)
    }

    /// Lists devices found by unicast (a scan, a cached address); mDNS's own view of the same
    /// instance, when it has one, stands in for them.
    func addUnicast(_ devices: [CastDevice]) {
        for device in devices {
            self.unicast[device.instanceName.isEmpty ? "unicast:" + device.id : device.instanceName] = device
        }
        self.publish(lossReasons: [:], defaultLoss: .removed)
    }

    // MARK: Outputs

    /// Sends the step's queries, publishes the device changes, and re-arms the timer.
    private func apply(_ step: BrowserEngine.Step) {
        for refusal in step.refusals {
            self.logger.debug("dropping a device record", metadata: ["mdns.record": "\(refusal)"])
        }
        for (message, index) in step.queries {
            for target in self.sockets.values where target.interface.index == index {
                target.send(message)
            }
        }
        if let changed = step.changedDevices, step.lossReasons.isEmpty {
            self.publishChanges(of: changed)
        } else {
            self.publish(lossReasons: step.lossReasons, defaultLoss: .filteredOut)
        }
        self.timer?.cancel()
        self.timer = nil
        if self.isRunning, let deadline = self.engine.nextDeadline {
            self.timer = self.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) {
                self.timer = nil
                self.apply(self.engine.advance(to: .now()))
            }
        }
    }

    /// Publishes the difference between the list as last published and as it is now.
    ///
    /// A vanished mDNS device's reason comes from `lossReasons`, a known host
    /// that mDNS found is `replaced`; any other vanished device (a filtered
    /// one, a removed known host) gets `defaultLoss`.
    private func publish(lossReasons: [String: DiscoveryEvent.LossReason], defaultLoss: DiscoveryEvent.LossReason) {
        // An instance mDNS saw go loses its unicast answer too: that answer is no fresher.
        for name in lossReasons.keys {
            self.unicast.removeValue(forKey: name)
            self.unicastMisses.removeValue(forKey: name)
        }
        var current: [String: CastDevice] = [:]
        for (name, device) in self.unicast where self.filter.accepts(device) {
            current[name] = device
        }
        for (name, device) in self.engine.devices where self.filter.accepts(device) {
            current[name] = device
        }
        let found = Array(current.values)
        var replaced: Set<String> = []
        for (id, host) in self.knownHosts where self.filter.accepts(host) {
            let isFound = found.contains {
                $0.port == host.port && $0.addresses.contains { host.addresses.contains($0) }
            }
            if isFound { replaced.insert("known:" + id) } else { current["known:" + id] = host }
        }
        var events: [DiscoveryEvent] = []
        for (key, old) in self.visible.sorted(by: { $0.key < $1.key }) where current[key] == nil {
            let reason: DiscoveryEvent.LossReason =
                replaced.contains(key)
                ? .replaced : self.engine.devices[key] == nil ? lossReasons[key] ?? defaultLoss : .filteredOut
            events.append(.lost(old, reason: reason))
        }
        for (key, device) in current.sorted(by: { $0.key < $1.key }) {
            if let old = self.visible[key] {
                let changes = device.changes(comparedTo: old)
                if !changes.isEmpty { events.append(.updated(device, changes: changes)) }
            } else {
                events.append(.found(device))
            }
        }
        self.visible = current
        self.finishPublishing(events)
    }

    /// Publishes what changed for the mDNS instances `names` alone, whose
    /// records were added: the step changed no other device. With a
    /// thousand devices answering, comparing and sorting the whole list
    /// for every message heard was most of discovery's work.
    private func publishChanges(of names: Set<String>) {
        guard !names.isEmpty else { return }
        var events: [DiscoveryEvent] = []
        var found: [CastDevice] = []
        for name in names.sorted() {
            let device = (self.engine.devices[name] ?? self.unicast[name]).flatMap {
                self.filter.accepts($0) ? $0 : nil
            }
            switch (self.visible[name], device) {
            case (nil, let device?):
                events.append(.found(device))
            case (let old?, let device?):
                let changes = device.changes(comparedTo: old)
                if !changes.isEmpty { events.append(.updated(device, changes: changes)) }
            case (let old?, nil):
                events.append(.lost(old, reason: .filteredOut))
            case (nil, nil):
                break
            }
            self.visible[name] = device
            if let device { found.append(device) }
        }
        // A known host that one of them turns out to be is replaced by it, as in a full publish.
        for (id, host) in self.knownHosts.sorted(by: { $0.key < $1.key }) {
            guard let listed = self.visible["known:" + id],
                found.contains(where: { $0.port == host.port && $0.addresses.contains { host.addresses.contains($0) } })
            else { continue }
            events.append(.lost(listed, reason: .replaced))
            self.visible["known:" + id] = nil
        }
        self.finishPublishing(events)
    }

    /// Logs and remembers `events`, and hands them with the list to subscribers.
    private func finishPublishing(_ events: [DiscoveryEvent]) {
        guard !events.isEmpty else { return }
        for event in events { self.log(event) }
        self.remember(events)
        self.broadcaster.publish(events, devices: self.visible)
    }

    /// Records the devices found or changed in the device cache, off the event loop.
    private func remember(_ events: [DiscoveryEvent]) {
        guard let cache = self.configuration.deviceCache else { return }
        let seen = events.compactMap { event -> CastDevice? in
            switch event {
            case .found(let device), .updated(let device, _): device
            case .lost: nil
            }
        }
        guard !seen.isEmpty else { return }
        let logger = self.logger
        let date = Date()
        Task.detached {
            do {
                try cache.record(seen, at: date)
            } catch {
                logger.warning("cannot write the device cache", metadata: ["error": "\(error)"])
            }
        }
    }

    /// The SDK's list order: by friendly name, without regard to case; ties by id.
    static func listOrder(_ lhs: CastDevice, _ rhs: CastDevice) -> Bool {
        let (left, right) = (lhs.friendlyName.lowercased(), rhs.friendlyName.lowercased())
        return left != right ? left < right : lhs.id < rhs.id
    }

    private func log(_ event: DiscoveryEvent) {
        switch event {
        case .found(let device):
            self.logger.info("device found", metadata: ["cast.device": "\(device)"])
        case .updated(let device, let changes):
            self.logger.info(
                "device updated", metadata: ["cast.device": "\(device)", "cast.changes": "\(changes.rawValue)"])
        case .lost(let device, let reason):
            self.logger.info("device lost", metadata: ["cast.device": "\(device)", "cast.reason": "\(reason)"])
        }
    }
}
