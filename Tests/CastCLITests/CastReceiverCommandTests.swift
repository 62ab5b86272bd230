import CastKit
import CastTestSupport
import Foundation
import Testing

/// `cast-receiver`: the emulator as a standalone process, which other
/// senders use — ours and pychromecast.
@Suite struct CastReceiverCommandTests {
    /// A running `cast-receiver` and the port it reported.
    final class Receiver: Sendable {
        let process: Process
        let port: Int
        let output: Pipe

        init(_ arguments: [String]) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CastCommandLineTests.executable("cast-receiver"))
            process.arguments = arguments
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            // The first line: cast-receiver "NAME" listening on HOST:PORT
            var line = Data()
            while !line.contains(UInt8(ascii: "\n")) {
                let chunk = output.fileHandleForReading.availableData
                guard !chunk.isEmpty else { break }
                line.append(chunk)
            }
            let text = String(decoding: line, as: UTF8.self)
            guard let port = text.split(separator: "\n").first?.split(separator: ":").last.flatMap({ Int($0) }) else {
                process.terminate()
                throw NamespaceError(message: "cast-receiver did not report its port: \(text)")
            }
            self.process = process
            self.port = port
            self.output = output
        }

        /// Stops the receiver and returns what it logged.
        func stop() -> String {
            self.process.terminate()
            self.process.waitUntilExit()
            return String(decoding: self.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        }
    }

    @Test func ourSenderControlsTheStandaloneReceiverAndItLogsWhatItReceived() async throws {
        try await RealTimeTurns.take { try await Self.controlTheStandaloneReceiver() }
    }

    private static func controlTheStandaloneReceiver() async throws {
        let receiver = try await onOwnThread {
            try Receiver(["--port", "0", "--name", "Standalone", "--seconds", "30"])
        }
        let launch = try await CastCommandLineTests.cast(
            "launch", "CC1AD845", "--device", "127.0.0.1:\(receiver.port)", "--json")
        #expect(launch.status == 0, "\(launch.stderr)")
        #expect(try launch.json()["displayName"] == "Default Media Receiver")
        let log = try await onOwnThread { receiver.stop() }
        #expect(log.contains("sender connected"))
        #expect(log.contains("CONNECT sender-0 → receiver-0") || log.contains("CONNECT "))
        #expect(log.contains(#""type":"LAUNCH""#))
    }

    @Test(.enabled(if: NamespacePair.hasPychromecast, "needs python3 with pychromecast (make setup installs it)"))
    func pychromecastUsesTheStandaloneReceiver() async throws {
        try await RealTimeTurns.take { try await Self.drivenByPychromecast() }
    }

    private static func drivenByPychromecast() async throws {
        let receiver = try await onOwnThread { try Receiver(["--port", "0", "--seconds", "60"]) }
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/interop/pychromecast_session.py").path
        let run = try await CastCommandLineTests.run(
            "/usr/bin/env", ["python3", script, "interop", "127.0.0.1", "\(receiver.port)"])
        let log = try await onOwnThread { receiver.stop() }
        #expect(run.status == 0, "\(run.stderr)\nreceiver log:\n\(log)")
        let report = try JSONValue(parsing: String(try #require(run.stdout.split(separator: "\n").last)))
        #expect(report["launched"]?["app_id"] == "CC1AD845")
        #expect(report["volume"]?["volume_level"] == 0.4)
        #expect(log.contains("SET_VOLUME"))
    }
}
