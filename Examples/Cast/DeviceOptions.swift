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

    /// The receiver: `--device` itself when it is an address, else the
    /// device discovery finds by that id or name.
    func resolveDevice() async throws -> CastDevice {
        let named = CastDeviceAddress(self.device) == nil && !CastDeviceAddress.looksLikeAddress(self.device)
        if named { Output.progress("looking for \"\(self.device)\"") }
        let device = try await DiscoveryManager.device(
            self.device, configuration: self.discovery.configuration, within: self.timeoutDuration,
            logger: self.logger)
        if named { Output.progress("found \(device)") }
        return device
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
