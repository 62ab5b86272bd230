@_spi(Receiver) import CastDiscovery
import CastEmulator
import CastTestSupport
import Foundation
import Testing

/// Interoperability with python-zeroconf, an mDNS stack written without
/// ours in mind: it advertises and we browse, we advertise and it browses.
@Suite(
    "Interop with python-zeroconf",
    .timeLimit(.minutes(10)),
    .serialized,
    .enabled(if: NamespacePair.isAvailable, "needs root and iproute2 to create network namespaces"),
    .enabled(if: NamespacePair.hasZeroconf, "needs python3 with zeroconf (make setup installs it)")
)
struct ZeroconfInteropTests {
    static let scripts = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("scripts/interop")
    static let deviceID = "a1b2c3d4e5f60718293a4b5c6d7e8f90"

    @Test("Our browser finds python-zeroconf's advertisement with every field, and its goodbye")
    func browseZeroconf() async throws {
        try await NamespacePair.with { pair in
            let advertiser = try pair.spawn(
                in: pair.a,
                [
                    "python3", Self.scripts.appendingPathComponent("zeroconf_advertise.py").path,
                    pair.ipv4(pair.a), Self.deviceID, "Salón 🎬",
                ]
            )
            defer { if advertiser.isRunning { advertiser.terminate() } }
            try await onOwnThread { try Self.waitForLine(from: advertiser, containing: "registered") }

            try await pair.withBrowser(in: pair.b, configuration: DiscoveryConfiguration(addressFamilies: .ipv4)) {
                discovery, log in
                let device = try await log.nextFound()
                #expect(device.id == Self.deviceID)
                #expect(device.friendlyName == "Salón 🎬")
                #expect(device.modelName == "Chromecast Ultra")
                #expect(device.capabilities.rawValue == 463_365)
                #expect(device.status == .idle)
                #expect(device.protocolVersion == 5)
                #expect(device.iconPath == "/setup/icon.png")
                #expect(device.runningAppStatus == nil)
                #expect(device.port == 8009)
                #expect(device.addresses == [IPAddress(pair.ipv4(pair.a))!])
                #expect(device.instanceName == "Chromecast-Ultra-\(Self.deviceID)")
                #expect(device.hostName == "a1b2c3d4-e5f6-0718-293a-4b5c6d7e8f90.local")
                #expect(device.txtRecord["cd"] == "0123456789ABCDEF0123456789ABCDEF")
                #expect(!device.isGroup)

                advertiser.terminate()
                // Its goodbyes are all sent, so a missing `lost` is our browser's fault.
                try await onOwnThread { try Self.waitForLine(from: advertiser, containing: "withdrawn") }
                let lost = try await log.next("lost") { $0.lossReason != nil }
                #expect(lost.lossReason == .goodbye)
                #expect(discovery.devices.isEmpty)
            }
        }
    }

    @Test("python-zeroconf's browser finds our responder's advertisement with every field")
    func zeroconfBrowsesUs() async throws {
        try await NamespacePair.with { pair in
            let group = try pair.eventLoopGroup(in: pair.a)
            var advertisement = CastAdvertisement(id: Self.deviceID, friendlyName: "Küche")
            advertisement.runningAppStatus = "Now playing"
            let responder = MDNSResponder(
                advertisement: advertisement, addressFamilies: .ipv4, eventLoopGroup: group, logger: quietLogger)
            try await responder.start()
            let outcome = await outcome {
                let arguments = [
                    "/usr/sbin/ip", "netns", "exec", pair.b, "python3",
                    Self.scripts.appendingPathComponent("zeroconf_browse.py").path, pair.ipv4(pair.b), "6",
                ]
                // Six seconds of browsing: on a thread of its own, off the cooperative pool.
                let output = try await onOwnThread { try NamespacePair.run(arguments) }
                let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("{") })
                let found = try JSONDecoder().decode(ZeroconfService.self, from: Data(line.utf8))
                #expect(found.name == "Chromecast-\(Self.deviceID)._googlecast._tcp.local.")
                #expect(found.server == "a1b2c3d4-e5f6-0718-293a-4b5c6d7e8f90.local.")
                #expect(found.port == 8009)
                #expect(found.addresses == [pair.ipv4(pair.a)])
                let expected = Dictionary(uniqueKeysWithValues: advertisement.txtAttributes.map { ($0.key, $0.value) })
                #expect(found.properties == expected)
                #expect(found.properties["fn"] == "Küche")
            }
            await responder.stop()
            try await group.shutdownGracefully()
            try outcome.get()
        }
    }

    /// One line of zeroconf_browse.py's output.
    struct ZeroconfService: Decodable {
        var name: String
        var server: String
        var port: Int
        var addresses: [String]
        var properties: [String: String]
        var seconds: Double
    }

    /// Reads the process's output until a line contains `text`, failing after 15 s.
    static func waitForLine(from process: Process, containing text: String) throws {
        guard let pipe = process.standardOutput as? Pipe else { throw NamespaceError(message: "no output pipe") }
        let deadline = Date().addingTimeInterval(15)
        var seen = ""
        while Date() < deadline {
            let data = pipe.fileHandleForReading.availableData
            if data.isEmpty { throw NamespaceError(message: "process ended before printing '\(text)': \(seen)") }
            seen += String(decoding: data, as: UTF8.self)
            if seen.contains(text) { return }
        }
        throw NamespaceError(message: "no '\(text)' within 15 s")
    }
}
