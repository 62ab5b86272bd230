// A thousand devices in one process: what watching N receivers costs our
// sender (one CastDeviceLink per device) against pychromecast (one thread
// per device, as Home Assistant runs it), on the same cast-receiver fleet
// in the same run (scripts/measure-fleet.sh).
//
// Per N: the time to connect to all at once; resident memory and threads
// added per device; CPU while every connection idles (heartbeats only);
// GET_STATUS to every device at once, answer latency; every device
// changing its volume at once (a RECEIVER_STATUS broadcast from each),
// latency from each change to the app seeing it (both processes read
// CLOCK_MONOTONIC).
//
// With discovery (scripts/measure-fleet.sh runs it so, in two network
// namespaces joined by a veth pair): the fleet advertises over mDNS and each
// side browses from a cold start until it has found all N (pychromecast
// through its CastBrowser on python-zeroconf).
//
//   FleetComparison RECEIVER SCRIPT [DEVICES [IDLE_SECONDS [PYCHROMECAST_UP_TO]]]
//   DEVICES: a comma list (default 10,100,1000); IDLE_SECONDS default 60.
//   Environment: FLEET_HOST (the fleet's address, default 127.0.0.1),
//   FLEET_RECEIVER_PREFIX (words before RECEIVER, e.g. `ip netns exec NS`),
//   FLEET_ADVERTISE_INTERFACE (the fleet's interface; enables discovery),
//   FLEET_BROWSE_INTERFACE and FLEET_BROWSE_ADDRESS (ours, where we browse).

import CastLogging
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    print("usage: FleetComparison RECEIVER SCRIPT [DEVICES [IDLE_SECONDS [PYCHROMECAST_UP_TO]]]")
    exit(2)
}
let receiverPath = arguments[1]
let script = arguments[2]
let counts = (arguments.count > 3 ? arguments[3] : "10,100,1000").split(separator: ",").compactMap { Int($0) }
let idleSeconds = arguments.count > 4 ? Double(arguments[4]) ?? 60 : 60
let pychromecastUpTo = arguments.count > 5 ? Int(arguments[5]) ?? 1000 : 1000
let environment = ProcessInfo.processInfo.environment
let host = environment["FLEET_HOST"] ?? "127.0.0.1"
let receiverPrefix = (environment["FLEET_RECEIVER_PREFIX"] ?? "").split(separator: " ").map(String.init)
let advertiseInterface = environment["FLEET_ADVERTISE_INTERFACE"]
let browseInterface = environment["FLEET_BROWSE_INTERFACE"] ?? "lo"
let browseAddress = environment["FLEET_BROWSE_ADDRESS"] ?? "127.0.0.1"
let quiet = CastLogger(filter: CastLogFilter(minimumLevel: .none))

/// One sender's figures for one N.
struct Row {
    var sender: String
    var devices: Int
    var connectSeconds = Double.nan
    var residentKiBPerDevice = Double.nan
    var threadsAdded = 0
    var idleCPUSeconds = Double.nan
    var status = Latencies(milliseconds: [])
    var broadcast = Latencies(milliseconds: [])
    /// How long the fleet took to change every device's volume (its first stamp to its last).
    var fleetSpanMilliseconds = Double.nan
    var browseSeconds: Double?
    var browseFound = 0
    var browseKiB = 0

    var line: String {
        let idleCore = self.idleCPUSeconds / idleSeconds * 100
        let perDeviceMinute = self.idleCPUSeconds / Double(self.devices) / idleSeconds * 60 * 1000
        return self.sender.padding(toLength: 13, withPad: " ", startingAt: 0)
            + String(
                format: " %5d  %8.2f  %9.1f  %7d  %8.3f  %9.3f  %7.1f / %-7.1f %7.1f / %-7.1f %7.1f  %d",
                self.devices, self.connectSeconds, self.residentKiBPerDevice,
                self.threadsAdded, idleCore, perDeviceMinute, self.status.percentile(0.5), self.status.percentile(0.99),
                self.broadcast.percentile(0.5), self.broadcast.percentile(0.99), self.fleetSpanMilliseconds,
                self.status.missing + self.broadcast.missing)
            + (advertiseInterface == nil
                ? ""
                : String(
                    format: "   %@ (%d found, %d KiB)",
                    self.browseSeconds.map { String(format: "%.2f s", $0) } ?? "not all",
                    self.browseFound, self.browseKiB))
    }
}

/// The fleet's devices step their volume; returns the level and when each changed.
func stepVolume(_ receiver: ChildProcess) async throws -> (level: Double, changed: [UInt64]) {
    receiver.send("volume")
    let answer = try await receiver.readObject()
    let level = (answer["volume"] as? NSNumber)?.doubleValue ?? .nan
    return (level, answer.stamps("changed").map { $0 ?? 0 })
}

/// The level the fleet's next `volume` sets (cast-receiver's rule, round ≥ 1).
func level(round: Int) -> Double { 0.3 + Double(round % 50) / 100 }

func measureOurs(ports: [Int], receiver: ChildProcess, round: inout Int) async throws -> Row {
    var row = Row(sender: "swift-cast", devices: ports.count)
    // Warm up: the event loops, TLS and the logger exist before the baseline, as in a running app.
    let warm = try await OurFleet.connect(host: host, ports: [ports[0]], logger: quiet)
    await warm.close()
    let before = ProcessFigures.current()
    let started = ContinuousClock.now
    let fleet = try await OurFleet.connect(host: host, ports: ports, logger: quiet)
    row.connectSeconds = seconds(ContinuousClock.now - started)
    let after = ProcessFigures.current()
    row.residentKiBPerDevice = Double(after.residentKiB - before.residentKiB) / Double(ports.count)
    row.threadsAdded = after.threads - before.threads
    let cpu = ProcessFigures.cpuSeconds()
    try await Task.sleep(for: .milliseconds(Int(idleSeconds * 1000)))
    row.idleCPUSeconds = ProcessFigures.cpuSeconds() - cpu
    let sent = ProcessFigures.monotonicNanoseconds()
    row.status = Latencies(arrived: await fleet.askStatus(), since: Array(repeating: sent, count: ports.count))
    round += 1
    fleet.expect(level: level(round: round))
    let (_, changed) = try await stepVolume(receiver)
    row.fleetSpanMilliseconds = span(changed)
    row.broadcast = Latencies(arrived: await fleet.arrivals(within: .seconds(60)), since: changed)
    await fleet.close()
    // Discovery last, so that the answers to its queries do not load the fleet while the rest is measured.
    if advertiseInterface != nil {
        let browse = try await OurBrowse.measure(
            interface: browseInterface, count: ports.count, timeout: .seconds(30), logger: quiet)
        (row.browseSeconds, row.browseFound, row.browseKiB) = (browse.seconds, browse.found, browse.residentKiB)
    }
    return row
}

func measurePychromecast(ports: [Int], receiver: ChildProcess, round: inout Int) async throws -> Row {
    var row = Row(sender: "pychromecast", devices: ports.count)
    let python = try ChildProcess(["python3", script, host, ports.map(String.init).joined(separator: ",")])
    defer { python.finish() }
    let connected = try await python.readObject()
    row.connectSeconds = (connected["seconds"] as? NSNumber)?.doubleValue ?? .nan
    let rss = ((connected["rss_kib"] as? Int) ?? 0) - ((connected["baseline_rss_kib"] as? Int) ?? 0)
    row.residentKiBPerDevice = Double(rss) / Double(ports.count)
    row.threadsAdded = ((connected["threads"] as? Int) ?? 0) - ((connected["baseline_threads"] as? Int) ?? 0)
    python.send("idle \(idleSeconds)")
    row.idleCPUSeconds = (try await python.readObject()["cpu_seconds"] as? NSNumber)?.doubleValue ?? .nan
    python.send("status")
    let status = try await python.readObject()
    let sent = (status["sent"] as? NSNumber)?.uint64Value ?? 0
    row.status = Latencies(arrived: status.stamps("arrived"), since: Array(repeating: sent, count: ports.count))
    round += 1
    python.send("watch \(level(round: round))")
    _ = try await python.readObject()  // watching
    let (_, changed) = try await stepVolume(receiver)
    row.fleetSpanMilliseconds = span(changed)
    row.broadcast = Latencies(arrived: try await python.readObject().stamps("arrived"), since: changed)
    python.send("quit")
    _ = try await python.readObject()
    if advertiseInterface != nil {
        let browser = try ChildProcess(["python3", script, "browse", browseAddress, "\(ports.count)", "30"])
        let browsed = try await browser.readObject()
        browser.finish()
        row.browseSeconds = (browsed["seconds"] as? NSNumber)?.doubleValue
        row.browseFound = browsed["found"] as? Int ?? 0
        row.browseKiB = browsed["rss_kib_added"] as? Int ?? 0
    }
    return row
}

/// From the first stamp to the last, in milliseconds.
func span(_ stamps: [UInt64]) -> Double {
    guard let first = stamps.min(), let last = stamps.max() else { return .nan }
    return Double(last - first) / 1e6
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

var rows: [Row] = []
for count in counts {
    let advertising = advertiseInterface.map { ["--advertise", "--interface", $0] } ?? []
    let receiver = try ChildProcess(
        receiverPrefix + [receiverPath, "--devices", "\(count)", "--port", "0", "--host", host] + advertising)
    let ports = try await receiver.readObject()["ports"] as? [Int] ?? []
    guard ports.count == count else { throw ComparisonFailure("cast-receiver started \(ports.count) of \(count)") }
    var round = 0
    rows.append(try await measureOurs(ports: ports, receiver: receiver, round: &round))
    print(rows.last!.line)
    if count <= pychromecastUpTo {
        rows.append(try await measurePychromecast(ports: ports, receiver: receiver, round: &round))
        print(rows.last!.line)
    }
    receiver.send("quit")
    receiver.finish()
}
print("")
print("N devices on one cast-receiver (\(host)), idle \(Int(idleSeconds)) s; latencies in ms, p50 / p99;")
print("fleet ms: how long the fleet took to change every device's volume, the broadcast's own spread:")
print(
    "sender        devices  connect s  KiB/device  threads  idle %core  CPU ms/dev/min  GET_STATUS        broadcast       fleet ms  missing"
        + (advertiseInterface == nil ? "" : "   browse until all found")
)
for row in rows { print(row.line) }
