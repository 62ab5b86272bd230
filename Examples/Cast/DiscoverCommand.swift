import ArgumentParser
import CastKit
import Foundation

/// `cast discover`: the live list of Cast devices, as they come, change and go.
struct DiscoverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discover",
        abstract: "List Cast devices as discovery finds, updates and loses them (until Ctrl-C or --timeout).",
        discussion: """
            With --json each event is one JSON object per line, with the seconds since \
            discovery started (scripts/measure-discovery.sh reads that form). Where multicast \
            does not arrive, --scan probes a range (TCP to port 8009, then the host's own DNS-SD \
            records by unicast) and lists what answers through the same events. Devices found \
            are remembered in the XDG cache directory, and --device NAME asks their last \
            address first.
            """)

    @OptionGroup var discovery: DiscoveryOptions

    @Option(help: "Stop after this many seconds.") var timeout: Double?

    @Option(help: "Stop once this many devices have been found (or at --timeout, if sooner).") var count: Int?

    @Option(name: .customLong("known"), help: "Also probe HOST or HOST:PORT by unicast (repeatable).")
    var knownHosts: [String] = []

    @Option(help: "Also probe every host of this IPv4 range, such as 192.168.1.0/24 (at most a /16).")
    var scan: String?

    @Flag(help: "Also ask each device found for its manufacturer, model and firmware (its setup server).")
    var details = false

    @Option(
        name: .customLong("setup-ports"),
        help: ArgumentHelp(
            "The ports of the devices' setup server, HTTPS then HTTP.", valueName: "HTTPS,HTTP"))
    var setupPorts = "\(CastDevice.setupSecurePort),\(CastDevice.setupPort)"

    @Flag(help: "One JSON object per event on stdout.") var json = false

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count needs at least 1, not \(count)") }
        _ = try self.detailsConfiguration()
    }

    /// How devices are asked for their details (--setup-ports).
    private func detailsConfiguration() throws -> CastDeviceDetails.FetchConfiguration {
        let ports = self.setupPorts.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard ports.count == 2, let secure = ports[0], let plain = ports[1],
            (1...65_535).contains(secure), (1...65_535).contains(plain)
        else {
            throw ValidationError("--setup-ports needs two ports such as 8443,8008, not '\(self.setupPorts)'")
        }
        return CastDeviceDetails.FetchConfiguration(securePort: secure, port: plain)
    }

    func run() async throws {
        try await self.reportingFailures {
            let known = try self.knownHostAddresses()
            let network = try self.scanNetwork()
            let manager = DiscoveryManager(
                configuration: self.discovery.configuration,
                logger: DeviceOptions.makeLogger(verbose: false))
            let events = manager.events()
            let started = ContinuousClock.now
            try await manager.start()
            // Printed as they come, while a scan still runs; ends at the
            // --count-th device found.
            let directory =
                self.details
                ? DeviceDetailsDirectory(configuration: try self.detailsConfiguration()) : nil
            let printing = Task { try await self.printEvents(events, started: started, directory: directory) }
            for (address, port) in known { await manager.addKnownHost(address, port: port) }
            if let network {
                Output.progress("scanning \(network)")
                let found = try await manager.scan(network)
                Output.progress("scanned \(network): \(found.count) device(s)")
            }
            // Counted from the start; a scan that takes longer ends first.
            let timer = self.timeout.map { timeout in
                Task {
                    try await Task.sleep(until: started + .milliseconds(Int(timeout * 1_000)))
                    printing.cancel()
                }
            }
            try await printing.value
            timer?.cancel()
            await manager.stop()
        }
    }

    /// The `--known` hosts as addresses and ports; throws when one is not an IP address with an optional port.
    private func knownHostAddresses() throws -> [(IPAddress, Int)] {
        try self.knownHosts.map { text throws -> (IPAddress, Int) in
            guard let known = CastDeviceAddress(text) else {
                throw ValidationError("--known needs an IP address with an optional port, not '\(text)'")
            }
            return (known.address, known.port)
        }
    }

    /// The `--scan` range, if given; throws when it is not an IPv4 range.
    private func scanNetwork() throws -> IPv4Network? {
        try self.scan.map { text throws -> IPv4Network in
            guard let network = IPv4Network(text) else {
                throw ValidationError("--scan needs an IPv4 range such as 192.168.1.0/24, not '\(text)'")
            }
            return network
        }
    }

    /// Prints each discovery event, timed from `started`, and with `directory` each found device's
    /// details; ends at the `--count`-th device found, its details printed, or when the events end.
    private func printEvents(
        _ events: AsyncStream<DiscoveryEvent>, started: ContinuousClock.Instant, directory: DeviceDetailsDirectory?
    ) async throws {
        let json = self.json
        var found = 0
        // With --details, the last --count-th device's details are awaited before the end.
        var asking: [Task<Void, Never>] = []
        for await event in events {
            let seconds = (ContinuousClock.now - started) / .seconds(1)
            // Written straight to the descriptor, so a pipe sees each line at once.
            FileHandle.standardOutput.write(
                Data((try Self.line(for: event, at: seconds, json: json) + "\n").utf8))
            if case .found(let device) = event, let directory {
                asking.append(
                    Task {
                        let details = await directory.details(for: device)
                        let seconds = (ContinuousClock.now - started) / .seconds(1)
                        let line =
                            (try? Self.line(for: device, details: details, at: seconds, json: json)) ?? ""
                        FileHandle.standardOutput.write(Data((line + "\n").utf8))
                    })
            }
            if case .found = event { found += 1 }
            if let count = self.count, found >= count { break }
        }
        for task in asking { await task.value }
    }

    /// One event as a line of text or JSON.
    static func line(for event: DiscoveryEvent, at seconds: Double, json: Bool) throws -> String {
        guard json else {
            let (kind, detail) = (event.json["event"]?.stringValue ?? "", event.json["detail"]?.stringValue ?? "")
            return String(format: "%7.3fs ", seconds) + "\(kind) \(event.device)"
                + (detail.isEmpty ? "" : " (\(detail))")
        }
        return try JSONValue.object((event.json.objectValue ?? [:]).merging(["seconds": .number(seconds)]) { $1 })
            .jsonText()
    }

    /// A device's details (--details) as a line of text or JSON; `details`
    /// `nil` when the device could not be asked.
    static func line(
        for device: CastDevice, details: CastDeviceDetails?, at seconds: Double, json: Bool
    ) throws -> String {
        guard json else {
            let text =
                details.map { details in
                    [
                        details.manufacturer.map { "manufacturer \($0)" }, details.modelName.map { "model \($0)" },
                        details.firmwareVersion.map { "firmware \($0)" },
                        device.iconURL.map { "icon \($0.absoluteString)" },
                    ].compactMap { $0 }.joined(separator: ", ")
                } ?? "not available (no setup server answered)"
            return String(format: "%7.3fs ", seconds) + "details \"\(device.friendlyName)\": \(text)"
        }
        let fields: [String: JSONValue] = [
            "event": .string("details"), "seconds": .number(seconds), "id": .string(device.id),
            "name": .string(device.friendlyName), "available": .bool(details != nil),
            "icon": device.iconURL.map { .string($0.absoluteString) } ?? .null,
        ]
        return try JSONValue.object(((details ?? CastDeviceDetails()).json.objectValue ?? [:]).merging(fields) { $1 })
            .jsonText()
    }
}
