import ArgumentParser
import CastKit

/// The options every device command shares.
struct DeviceOptions: ParsableArguments {
    @Option(
        name: .shortAndLong,
        help: """
            The receiver: an IP address (HOST, HOST:PORT, [IPv6]:PORT; port 8009 if left out), \
            or a device name or id found by discovery.
            """)
    var device: String

    @OptionGroup(title: "Discovery (for --device NAME or ID)") var discovery: DiscoveryOptions

    @Option(help: "Seconds to wait for discovery, the connection and each reply.")
    var timeout: Double = 10

    @Flag(help: "Print the result as JSON on stdout.")
    var json = false

    @OptionGroup(title: "Device trust") var trust: TrustOptions

    @Flag(name: .shortAndLong, help: "Log what the SDK does (to stderr).")
    var verbose = false

    /// `--timeout` as a duration.
    var timeoutDuration: Duration { .milliseconds(Int(self.timeout * 1_000)) }

    /// The receiver: `--device` itself when it is an IP address (a known
    /// host), else the device discovery finds by that id or name.
    func resolveDevice() async throws -> CastDevice {
        if let address = DeviceAddress(self.device),
            let ip = address.host == "localhost" ? IPAddress("127.0.0.1") : IPAddress(address.host)
        {
            return CastDevice(knownHost: ip, port: address.port)
        }
        guard !self.device.contains(":") || IPAddress(self.device) != nil else {
            throw CommandFailure(.deviceNotFound, "'\(self.device)' is not HOST, HOST:PORT or [IPv6]:PORT")
        }
        Output.progress("looking for \"\(self.device)\"")
        let wanted = self.device
        let found = try await DiscoveryManager.firstDevice(
            named: wanted, configuration: self.discovery.configuration, within: self.timeoutDuration,
            logger: self.logger)
        guard let found else {
            throw CommandFailure(
                .deviceNotFound, "no device named or with id \"\(wanted)\" answered within \(self.timeout) s")
        }
        guard !found.addresses.isEmpty else {
            throw CommandFailure(.deviceNotFound, "\(found.friendlyName) has no address")
        }
        Output.progress("found \(found)")
        return found
    }

    /// A logger that prints to stderr with `--verbose`, and is silent otherwise.
    var logger: CastLogger { Self.makeLogger(verbose: self.verbose) }

    /// A logger that prints debug records to stderr when `verbose`, and nothing otherwise.
    static func makeLogger(verbose: Bool) -> CastLogger {
        let logger = CastLogger(filter: CastLogFilter(minimumLevel: verbose ? .debug : .none))
        if verbose { logger.addSink(ClosureLogSink { Output.progress("\($0)") }) }
        return logger
    }
}

/// A receiver address as typed on the command line.
struct DeviceAddress: Equatable {
    static let defaultPort = 8009

    let host: String
    let port: Int

    /// Parses `HOST`, `HOST:PORT`, `[IPv6]:PORT` or a bare IPv6 address; `nil` if malformed.
    init?(_ text: String) {
        var host = Substring(text)
        var port = Self.defaultPort
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let value = Int(rest.dropFirst()) else { return nil }
                port = value
            }
        } else if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
            guard let value = Int(host[host.index(after: colon)...]) else { return nil }
            port = value
            host = host[..<colon]
        }
        guard !host.isEmpty, (1...65_535).contains(port) else { return nil }
        self.host = String(host)
        self.port = port
    }
}
