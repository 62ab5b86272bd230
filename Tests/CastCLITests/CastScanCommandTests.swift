import CastEmulator
import CastKit
import CastTestSupport
import Foundation
import Testing

/// `cast discover --scan` and the device cache where the sender's multicast is dropped
/// (nftables), on a bridged LAN of namespaces: the emulator and its responder in one, `cast`
/// in the sender's.
@Suite(
    .timeLimit(.minutes(10)),
    .enabled(if: NamespacePair.isAvailable && BridgedLAN.hasNFTables, "needs root, iproute2 and nftables"))
struct CastScanCommandTests {
    @Test func aScanFindsTheSpeakerAndTheCacheLetsDeviceNameReachItAfterwards() async throws {
        try await RealTimeTurns.take(.childProcesses) { try await Self.scanThenByName() }
    }

    private static func scanThenByName() async throws {
        let cacheHome = FileManager.default.temporaryDirectory.appendingPathComponent("cast-xdg-\(UUID())")
        defer { try? FileManager.default.removeItem(at: cacheHome) }
        try await BridgedLAN.with(devices: 1) { lan in
            try lan.dropMulticast()
            let loops = try NamespacePair.eventLoopGroup(inNamespace: lan.devices[0])
            let emulator = try CastEmulator(
                configuration: CastEmulatorConfiguration(
                    host: lan.address(ofDevice: 0), name: "Office speaker", profile: .nestSpeaker),
                eventLoopGroup: loops, logger: CastCommandLineTests.quiet)
            var responder: MDNSResponder?
            let result = await outcome {
                try await emulator.start(port: 8009)
                // Made once the emulator listens: its advertisement carries the port.
                let advertising = emulator.makeResponder(interfaces: .named(["eth0"]), addressFamilies: .ipv4)
                responder = advertising
                try await retrying { try await advertising.start() }
                let cast = [
                    "netns", "exec", lan.sender, "env", "XDG_CACHE_HOME=\(cacheHome.path)",
                    CastCommandLineTests.executable("cast"),
                ]
                let options = ["--interface", "br0", "--ipv4"]

                // mDNS alone finds nothing: the device is not remembered yet and multicast is dropped.
                let before = try await CastCommandLineTests.run(
                    "/usr/sbin/ip", cast + ["status", "--device", "Office speaker", "--timeout", "2"] + options)
                #expect(before.status == 3, "\(before.stderr)")

                let discover = try await CastCommandLineTests.run(
                    "/usr/sbin/ip",
                    cast + ["discover", "--scan", lan.network, "--json", "--count", "1", "--timeout", "4"] + options)
                #expect(discover.status == 0, "\(discover.stderr)")
                let found = try #require(discover.stdout.split(separator: "\n").first)
                let event = try JSONValue(parsing: String(found))
                #expect(event["event"] == "found")
                #expect(event["name"] == "Office speaker")
                #expect(event["id"] == .string(emulator.advertisement.id))
                #expect(discover.stderr.contains("scanned \(lan.network): 1 device(s)"), "\(discover.stderr)")

                // Now remembered: found by name through its last address, multicast still dropped.
                let after = try await CastCommandLineTests.run(
                    "/usr/sbin/ip",
                    cast + ["status", "--device", "office speaker", "--json", "--timeout", "10"] + options)
                #expect(after.status == 0, "\(after.stderr)")
                #expect(after.stderr.contains("found \"Office speaker\""), "\(after.stderr)")
                #expect(try JSONValue(parsing: after.stdout)["volume"]?["level"] == 1)

                let tooWide = try await CastCommandLineTests.run(
                    "/usr/sbin/ip", cast + ["discover", "--scan", "10.0.0.0/33", "--timeout", "1"] + options)
                #expect(tooWide.status == 64, "\(tooWide.stderr)")
            }
            await responder?.stop(sendingGoodbye: false)
            await emulator.stop()
            try? await loops.shutdownGracefully()
            try result.get()
        }
    }
}
