import CastCommon
import CastEmulator
import CastKit
import Foundation

/// `cast-receiver --devices N`: N emulated devices in one process, each
/// with its own receiver state, TLS certificate and port (and, advertising,
/// its own mDNS record), for measuring a sender that watches a whole
/// network of receivers (Benchmarks/Comparisons/FleetComparison).
///
/// It prints one JSON line when every device listens —
/// `{"devices": N, "host": …, "ports": [...]}` — and then reads commands,
/// one per line, on standard input:
/// - `volume`: every device's volume steps, as a user pressing the
///   remote's volume key would, and each tells its senders
///   (RECEIVER_STATUS, requestId 0). Prints `{"volume": LEVEL, "changed": [...]}`:
///   the monotonic clock (`CLOCK_MONOTONIC`, nanoseconds) just before each
///   device's change, in port order, so a sender on this machine measures
///   how long each status took to reach it.
/// - `quit`: stops every device.
///
/// The end of standard input is not a command: the fleet keeps running
/// until `--seconds`, `quit` or Ctrl-C.
struct EmulatorFleet {
    let emulators: [CastEmulator]
    let responders: [MDNSResponder]

    /// Starts `count` devices named "`name` 1"…, on `firstPort` and the
    /// ports after it (0: each on a free port), advertised on `interfaces`
    /// when given.
    static func start(
        count: Int, name: String, host: String, firstPort: Int, profile: ReceiverProfile,
        advertisingOn interfaces: InterfaceSelection?, logger: CastLogger
    ) async throws -> EmulatorFleet {
        var emulators: [CastEmulator] = []
        for index in 0..<count {
            let emulator = try CastEmulator(
                configuration: CastEmulatorConfiguration(
                    host: host, port: firstPort == 0 ? 0 : firstPort + index, name: "\(name) \(index + 1)",
                    profile: profile),
                logger: logger)
            try await emulator.start()
            emulators.append(emulator)
        }
        var responders: [MDNSResponder] = []
        if let interfaces {
            // One responder answering for every device (each answer its own datagram):
            // a thousand responders on one host would each hear every other's multicast.
            let responder = MDNSResponder(
                advertisements: emulators.map(\.advertisement), interfaces: interfaces, logger: logger)
            try await responder.start()
            responders.append(responder)
        }
        return EmulatorFleet(emulators: emulators, responders: responders)
    }

    /// The line that says every device listens.
    func readyLine(host: String) -> String {
        let ports = self.emulators.map { String($0.port) }.joined(separator: ",")
        return "{\"devices\": \(self.emulators.count), \"host\": \"\(host)\", \"ports\": [\(ports)]}"
    }

    /// Answers commands from standard input until `quit`, or forever once it ends.
    func serveCommands(say: @Sendable (String) -> Void) async {
        var round = 0
        for await command in Self.standardInputLines() {
            switch command.trimmingCharacters(in: .whitespaces) {
            case "volume":
                round += 1
                say(self.stepVolume(round: round))
            case "quit":
                return
            case "":
                continue
            default:
                say("{\"error\": \"unknown command; use volume or quit\"}")
            }
        }
        // Standard input ended (a pipe closed, /dev/null): run until stopped otherwise.
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3_600))
        }
    }

    /// Steps every device's volume to this round's level and says when each changed.
    private func stepVolume(round: Int) -> String {
        let level = 0.3 + Double(round % 50) / 100
        var changed: [UInt64] = []
        changed.reserveCapacity(self.emulators.count)
        for emulator in self.emulators {
            changed.append(Self.monotonicNanoseconds())
            emulator.setVolume(ReceiverVolume(level: level, isMuted: false))
        }
        let stamps = changed.map(String.init).joined(separator: ",")
        return "{\"volume\": \(level), \"changed\": [\(stamps)]}"
    }

    func stop() async {
        for responder in self.responders { await responder.stop() }
        for emulator in self.emulators { await emulator.stop() }
    }

    /// `CLOCK_MONOTONIC` in nanoseconds: the clock Python's `time.monotonic_ns`
    /// and the benchmark read too, so stamps compare across processes.
    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// Standard input's lines, read on a thread of their own (a blocking
    /// read must not hold one of the few cooperative threads).
    private static func standardInputLines() -> AsyncStream<String> {
        AsyncStream { continuation in
            let reader = Thread {
                while let line = readLine() { continuation.yield(line) }
                continuation.finish()
            }
            reader.name = "fleet-stdin"
            reader.start()
        }
    }
}
