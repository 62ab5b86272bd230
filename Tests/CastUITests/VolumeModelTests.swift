import CastEmulator
import CastKit
import CastTestSupport
import CastUI
import Foundation
import Testing

@Suite(.timeLimit(.minutes(3))) struct VolumeModelTests {
    /// Presses from concurrent tasks (a key held down, a media-key daemon and
    /// a slider at once) add up, and reach the receiver in the order they were
    /// asked for: each SET_VOLUME higher than the last, and the device ends
    /// at the last level asked for.
    @Test func concurrentPressesReachTheReceiverInOrder() async throws {
        // The `chromecast` profile: attenuation volume in 0.04 steps (conformance 002).
        let emulator = try CastEmulator(configuration: CastEmulatorConfiguration(profile: .chromecast))
        // One stream for every round, from before the emulator starts: a new
        // listener would first be handed the last event seen.
        let events = emulator.events()
        try await emulator.start()
        defer { Task { await emulator.stop() } }
        let context = CastContext(options: uiOptions(joining: [emulator]))
        let volume = VolumeModel(sessionManager: context.sessionManager)
        defer { volume.close() }
        let volumeLog = StateLog(volume.updates())
        let device = await context.discoveryManager.addKnownHost(
            try #require(IPAddress("127.0.0.1")), port: emulator.port, friendlyName: "Living Room TV")
        _ = try await context.sessionManager.startSession(on: device)
        #expect(await volumeLog.wait { $0.isEnabled } != nil)
        // Ten rounds: the window between a press taking its level and its
        // request reaching the channel is small, and only sometimes overtaken.
        let presses = 10
        let expected = (0...presses).map { 0.2 + Double($0) * 0.04 }
        for _ in 0..<10 {
            try await volume.setLevel(0.2)
            #expect(await volumeLog.wait { abs($0.level - 0.2) < 0.001 } != nil)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<presses { group.addTask { try await volume.stepUp() } }
                try await group.waitForAll()
            }
            #expect(await volumeLog.wait { abs($0.level - 0.6) < 0.001 } != nil)
            #expect(abs((emulator.volume.level ?? 0) - 0.6) < 0.001)
            let sent = await collect(events, count: expected.count, setVolumeLevel)
            #expect(
                zip(sent, expected).allSatisfy { abs($0 - $1) < 0.001 } && sent.count == expected.count,
                "SET_VOLUME levels in order: \(sent)")
        }
    }
}

/// The level of a SET_VOLUME request the emulator received; `nil` for any other event.
@Sendable private func setVolumeLevel(_ event: EmulatorEvent) -> Double? {
    guard case .messageReceived(_, let message) = event, let text = message.text, text.contains("SET_VOLUME"),
        let json = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
    else { return nil }
    return (json["volume"] as? [String: Any])?["level"] as? Double
}
