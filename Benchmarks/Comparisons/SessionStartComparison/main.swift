// Connect → app session started against one emulator: our SessionManager
// versus pychromecast, in the same run (scripts/measure-session-start.sh).
//
// Each run starts from no connection: connect (TCP, TLS), CONNECT to
// receiver-0, GET_STATUS, LAUNCH of the Default Media Receiver, and the
// status with the app. The app is stopped and the connection closed after
// each run, untimed, so every run launches. Prints each side's median of
// RUNS and their ratio: absolute times depend on the machine, the ratio less.

import CastEmulator
import CastKit
import Foundation

let arguments = CommandLine.arguments
let runs = arguments.count > 1 ? Int(arguments[1]) ?? 20 : 20
let script = arguments.count > 2 ? arguments[2] : "scripts/interop/pychromecast_session.py"
let quiet = CastLogger(filter: CastLogFilter(minimumLevel: .none))

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
}

func milliseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1000 + Double(attoseconds) / 1e15
}

let emulator = try CastEmulator(logger: quiet)
try await emulator.start()
let device = CastDevice(
    id: "emulator", friendlyName: "Cast Emulator", modelName: "Chromecast", capabilities: [.videoOut, .audioOut],
    addresses: [IPAddress("127.0.0.1")!], port: emulator.port, source: .knownHost)

// Ours: a fresh manager per run, as a new sender would be.
var ours: [Double] = []
for run in 0...runs {
    let manager = SessionManager(options: CastOptions(sessionStore: nil, logger: quiet))
    let started = ContinuousClock.now
    _ = try await manager.startSession(on: device)
    let elapsed = milliseconds(ContinuousClock.now - started)
    await manager.endSession(stoppingApplication: true)
    if run > 0 { ours.append(elapsed) }  // run 0 warms up
}

// pychromecast, against the same emulator.
let process = Process()
process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
process.arguments = ["python3", script, "measure", "127.0.0.1", "\(emulator.port)", "\(runs + 1)"]
let output = Pipe()
process.standardOutput = output
try process.run()
let data = output.fileHandleForReading.readDataToEndOfFile()
process.waitUntilExit()
let seconds = (try JSONSerialization.jsonObject(with: data) as? [Double]) ?? []
let theirs = seconds.dropFirst().map { $0 * 1000 }
await emulator.stop()

guard process.terminationStatus == 0, theirs.count == runs else {
    print("pychromecast did not finish its runs (exit \(process.terminationStatus))")
    exit(1)
}
let oursMedian = median(ours)
let theirsMedian = median(Array(theirs))
print("connect → app session started, median of \(runs) (after one warm-up each), same emulator:")
print(String(format: "  swift-cast SessionManager  %7.2f ms", oursMedian))
print(String(format: "  pychromecast               %7.2f ms", theirsMedian))
print(String(format: "  ratio (ours / pychromecast) %6.2f", oursMedian / theirsMedian))
