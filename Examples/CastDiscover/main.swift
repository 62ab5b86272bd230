// cast-discover: lists Cast devices as discovery finds, updates and loses them.
//
//   cast-discover [--seconds N] [--interface NAME]... [--loopback] [--ipv4 | --ipv6]
//                 [--passive] [--known HOST[:PORT]]... [--json]
//
// Runs until Ctrl-C, or for N seconds. With --json each event is one JSON
// object per line, with the seconds since discovery started; the discovery
// measurement (scripts/measure-discovery.sh) reads that form.
//
// Discovery sends mDNS multicast on every selected interface: on a shared
// machine, select loopback (--loopback) or run it inside a network namespace.

import CastDiscovery
import CastLogging
import Foundation

struct Options {
    var seconds: Double?
    var interfaces: Set<String> = []
    var loopback = false
    var families: AddressFamilies = .all
    var mode: ScanMode = .active
    var knownHosts: [(IPAddress, Int)] = []
    var json = false

    static let usage = """
        usage: cast-discover [--seconds N] [--interface NAME]... [--loopback] [--ipv4 | --ipv6]
                             [--passive] [--known HOST[:PORT]]... [--json]
        """

    init(_ arguments: [String]) throws {
        var remaining = arguments[...]
        func value(for option: String) throws -> String {
            guard let value = remaining.popFirst() else { throw UsageError(message: "\(option) needs a value") }
            return value
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--seconds":
                guard let seconds = Double(try value(for: argument)), seconds > 0 else {
                    throw UsageError(message: "--seconds needs a positive number")
                }
                self.seconds = seconds
            case "--interface": self.interfaces.insert(try value(for: argument))
            case "--loopback": self.loopback = true
            case "--ipv4": self.families = .ipv4
            case "--ipv6": self.families = .ipv6
            case "--passive": self.mode = .passive
            case "--json": self.json = true
            case "--known": self.knownHosts.append(try Self.hostAndPort(try value(for: argument)))
            case "--help", "-h": throw UsageError(message: nil)
            default: throw UsageError(message: "unknown option \(argument)")
            }
        }
    }

    /// `192.168.1.20`, `192.168.1.20:8009`, `fd00::20` or `[fd00::20]:8009`.
    static func hostAndPort(_ text: String) throws -> (IPAddress, Int) {
        if let address = IPAddress(text) { return (address, CastDevice.standardPort) }
        let bracketed = text.hasPrefix("[")
        let separator = bracketed ? text.range(of: "]:") : text.range(of: ":", options: .backwards)
        if let separator, let port = Int(text[separator.upperBound...]),
            let address = IPAddress(String(text[..<separator.lowerBound].drop { $0 == "[" }))
        {
            return (address, port)
        }
        throw UsageError(message: "--known needs an IP address with an optional port, not '\(text)'")
    }

    var configuration: DiscoveryConfiguration {
        let selection: InterfaceSelection =
            self.interfaces.isEmpty
            ? (self.loopback ? .loopbackOnly : .automatic())
            : .named(self.interfaces.union(self.loopback ? ["lo"] : []))
        return DiscoveryConfiguration(interfaces: selection, addressFamilies: self.families, scanMode: self.mode)
    }
}

struct UsageError: Error {
    let message: String?
}

func line(for event: DiscoveryEvent, at seconds: Double, json: Bool) -> String {
    let device = event.device
    let kind: String
    var detail = ""
    switch event {
    case .found: kind = "found"
    case .updated(_, let changes):
        kind = "updated"
        detail = "changes \(changes.rawValue)"
    case .lost(_, let reason):
        kind = "lost"
        detail = "\(reason)"
    }
    guard json else {
        let time = String(format: "%7.3f", seconds)
        return "\(time)s \(kind) \(device)\(detail.isEmpty ? "" : " (\(detail))")"
    }
    let object: [String: Any] = [
        "event": kind, "detail": detail, "seconds": seconds, "id": device.id, "name": device.friendlyName,
        "model": device.modelName, "port": device.port, "addresses": device.addresses.map(\.description),
        "capabilities": device.capabilities.rawValue, "group": device.isGroup,
    ]
    let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    return String(decoding: data, as: UTF8.self)
}

let options: Options
do {
    options = try Options(Array(CommandLine.arguments.dropFirst()))
} catch let error as UsageError {
    if let message = error.message { FileHandle.standardError.write(Data("cast-discover: \(message)\n".utf8)) }
    FileHandle.standardError.write(Data((Options.usage + "\n").utf8))
    exit(error.message == nil ? 0 : 2)
}

let logger = CastLogger(filter: CastLogFilter(minimumLevel: .warning))
_ = logger.addSink(ClosureLogSink { FileHandle.standardError.write(Data("\($0)\n".utf8)) })
let discovery = DiscoveryManager(configuration: options.configuration, logger: logger)
let started = ContinuousClock.now
let events = discovery.events()
do {
    try await discovery.start()
} catch {
    FileHandle.standardError.write(Data("cast-discover: \(error)\n".utf8))
    exit(1)
}
for (address, port) in options.knownHosts {
    await discovery.addKnownHost(address, port: port)
}
if let seconds = options.seconds {
    Task {
        try await Task.sleep(for: .seconds(seconds))
        await discovery.stop()
        exit(0)
    }
}
for await event in events {
    let elapsed = ContinuousClock.now - started
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    // Written straight to the descriptor, so a pipe sees each line at once.
    FileHandle.standardOutput.write(Data((line(for: event, at: seconds, json: options.json) + "\n").utf8))
}
