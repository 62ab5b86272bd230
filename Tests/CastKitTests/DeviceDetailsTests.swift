import CastCommon
import CastEmulator
import CastKit
import CastTestSupport
import Foundation
import NIOCore
import NIOPosix
import Testing

/// Devices as the SDK's picker shows them: the icon as a URL, and the
/// manufacturer and model from the device's setup server — read from real
/// devices' answers (conformance 076, 078), from the emulator's setup server
/// over real HTTPS and HTTP, and by pychromecast from that server.
@Suite(.timeLimit(.minutes(3))) struct DeviceDetailsTests {
    static func device(
        _ address: String = "192.168.1.20", iconPath: String? = "/setup/icon.png", port: Int = 8009,
        modelName: String = "Chromecast"
    ) throws -> CastDevice {
        CastDevice(
            id: "4c5b1a2b3c4d5e6f708192a3b4c5d6e7", friendlyName: "Living Room", modelName: modelName,
            iconPath: iconPath, capabilities: [.videoOut, .audioOut], addresses: [try #require(IPAddress(address))],
            port: port)
    }

    // MARK: The icon

    @Test func theIconIsAnAbsoluteURLOnTheSetupServer() throws {
        #expect(try Self.device().iconURL?.absoluteString == "http://192.168.1.20:8008/setup/icon.png")
        #expect(
            try Self.device("fe80::1%eth0").iconURL?.absoluteString == "http://[fe80::1%25eth0]:8008/setup/icon.png")
        #expect(try Self.device(iconPath: nil).iconURL == nil)
        #expect(try Self.device(iconPath: "icon.png").iconURL == nil, "not a path")
        #expect(try Self.device(port: 32_254, modelName: CastDevice.groupModelName).iconURL == nil, "a group")
    }

    // MARK: Parsing what devices answer

    /// Conformance 078 (an NVIDIA SHIELD, port 8008): no `device_info`, so
    /// name, UDN and firmware but no manufacturer or model.
    @Test func aRealAnswerWithoutDeviceInfo() throws {
        let fixture = try #require(ConformanceFixture.numbered("078"))
        let details = try CastDeviceDetails(eurekaInfo: Data(try fixture.text().utf8))
        #expect(details.name == "Shield woonkamer")
        #expect(details.udn == "ecdd1875-99fa-75be-deed-71691385bc70")
        #expect(details.firmwareVersion == "1.56.276477")
        #expect(details.manufacturer == nil)
        #expect(details.modelName == nil)
        #expect(details.hasDisplay == nil)
    }

    /// Conformance 076 (a Chromecast), as repaired by the fixture loader: its UDN redacted, a string still.
    @Test func aRealChromecastAnswer() throws {
        let fixture = try #require(ConformanceFixture.numbered("076"))
        let details = try CastDeviceDetails(eurekaInfo: Data(try fixture.text().utf8))
        #expect(details.name == "ChromeCastVideo")
        #expect(details.firmwareVersion == "1.56.275994")
        #expect(details.manufacturer == nil)
    }

    /// `device_info` wins over the top level, as pychromecast's `get_device_info` reads it.
    @Test func deviceInfoFirstThenTheTopLevel() throws {
        let json = """
            {"name": "Top", "ssdp_udn": "top-udn", "cast_build_revision": "1.2.3",
             "device_info": {"name": "Kitchen", "manufacturer": "NVIDIA", "model_name": "SHIELD Android TV",
                             "ssdp_udn": "info-udn", "capabilities": {"display_supported": false}}}
            """
        let details = try CastDeviceDetails(eurekaInfo: Data(json.utf8))
        #expect(
            details
                == CastDeviceDetails(
                    name: "Kitchen", manufacturer: "NVIDIA", modelName: "SHIELD Android TV", udn: "info-udn",
                    firmwareVersion: "1.2.3", hasDisplay: false))
    }

    /// Fields of the wrong type or empty are absent, not errors; what is not a JSON object is an error.
    @Test func oddFieldsAreIgnoredAndGarbageRefused() throws {
        let odd = """
            {"name": 7, "ssdp_udn": "", "device_info": {"manufacturer": ["x"], "model_name": "M",
             "capabilities": {"display_supported": "yes"}}}
            """
        #expect(try CastDeviceDetails(eurekaInfo: Data(odd.utf8)) == CastDeviceDetails(modelName: "M"))
        #expect(try CastDeviceDetails(eurekaInfo: Data(#"{"device_info": 3}"#.utf8)) == CastDeviceDetails())
        for garbage in ["", "[1,2]", "\"text\"", "{\"name\": ", "\u{FF}\u{FE}"] {
            #expect(throws: CastDeviceDetailsError(.malformedAnswer, "")) {
                try CastDeviceDetails(eurekaInfo: Data(garbage.utf8))
            }
        }
        let large = Data(
            ("{\"name\": \"" + String(repeating: "a", count: CastDeviceDetails.largestAnswer) + "\"}").utf8)
        #expect(throws: CastDeviceDetailsError(.malformedAnswer, "")) { try CastDeviceDetails(eurekaInfo: large) }
    }

    // MARK: Asking the emulator's setup server

    static func emulator(name: String = "Kitchen", host: String = "127.0.0.1") throws -> CastEmulator {
        try CastEmulator(
            configuration: CastEmulatorConfiguration(host: host, name: name, profile: .chromecast),
            logger: quietLogger)
    }

    static func device(of emulator: CastEmulator) throws -> CastDevice {
        let advertisement = emulator.advertisement
        return CastDevice(
            id: advertisement.id, friendlyName: advertisement.friendlyName, modelName: advertisement.modelName,
            iconPath: advertisement.iconPath, capabilities: advertisement.capabilities,
            addresses: [try #require(IPAddress(emulator.configuration.host))], port: emulator.port)
    }

    @Test func overHTTPSTheManufacturerAndModel() async throws {
        let emulator = try Self.emulator()
        try await emulator.start()
        try await emulator.startSetupServer()
        let ports = try #require(emulator.setupPorts)
        let details = try await CastDeviceDetails.fetch(
            for: try Self.device(of: emulator),
            configuration: CastDeviceDetails.FetchConfiguration(securePort: ports.secure, port: ports.plain),
            on: MultiThreadedEventLoopGroup.singleton.next())
        #expect(details.manufacturer == "Google Inc.")
        #expect(details.modelName == "Chromecast")
        #expect(details.name == "Kitchen")
        #expect(details.hasDisplay == true)
        #expect(details.firmwareVersion == CastEmulator.firmwareVersion)
        // The UDN is the advertised id with dashes.
        #expect(details.udn?.replacingOccurrences(of: "-", with: "") == emulator.advertisement.id)
        #expect(details.udn?.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12])

        // The icon the advertisement names is served over HTTP.
        let icon = try await HTTPFetch.request(
            "GET", try #require(URL(string: "http://127.0.0.1:\(ports.plain)/setup/icon.png")),
            timeout: .seconds(5), keepingBodyUpTo: 1 << 16, on: MultiThreadedEventLoopGroup.singleton.next())
        #expect(icon.status == 200)
        #expect(icon.header("Content-Type") == "image/png")
        #expect(icon.body?.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
        await emulator.stop()
        #expect(emulator.setupPorts == nil)
    }

    /// HTTPS closed: plain HTTP answers without `device_info` (as conformance 078), so no manufacturer.
    /// Both closed: unreachable. A group has no setup server to ask.
    @Test func fallsBackToHTTPThenSaysUnreachable() async throws {
        let emulator = try Self.emulator()
        try await emulator.start()
        try await emulator.startSetupServer()
        let ports = try #require(emulator.setupPorts)
        let closed = try await Self.closedPort()
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let device = try Self.device(of: emulator)
        let details = try await CastDeviceDetails.fetch(
            for: device, configuration: CastDeviceDetails.FetchConfiguration(securePort: closed, port: ports.plain),
            on: loop)
        #expect(details.name == "Kitchen")
        #expect(details.manufacturer == nil)
        #expect(details.udn != nil)
        await emulator.stop()

        await #expect(throws: CastDeviceDetailsError(.unreachable, "")) {
            try await CastDeviceDetails.fetch(
                for: device, configuration: CastDeviceDetails.FetchConfiguration(securePort: closed, port: closed),
                on: loop)
        }
        let group = try Self.device(port: 32_254, modelName: CastDevice.groupModelName)
        await #expect(throws: CastDeviceDetailsError(.noSetupServer, "")) {
            try await CastDeviceDetails.fetch(for: group, on: loop)
        }
    }

    /// A server that sends more than the bound is cut off, never read whole.
    @Test func anOversizedAnswerIsRefused() async throws {
        let server = try await OversizedServer.start()
        let device = try Self.device("127.0.0.1")
        await #expect(throws: CastDeviceDetailsError(.malformedAnswer, "")) {
            try await CastDeviceDetails.fetch(
                for: device,
                configuration: CastDeviceDetails.FetchConfiguration(securePort: server.port, port: server.port),
                on: MultiThreadedEventLoopGroup.singleton.next())
        }
        try await server.channel.close()
    }

    /// Asked once: the second answer is the remembered one, with the server gone.
    @Test func theDirectoryAsksOncePerDevice() async throws {
        let emulator = try Self.emulator()
        try await emulator.start()
        try await emulator.startSetupServer()
        let ports = try #require(emulator.setupPorts)
        let directory = DeviceDetailsDirectory(
            configuration: CastDeviceDetails.FetchConfiguration(securePort: ports.secure, port: ports.plain))
        let device = try Self.device(of: emulator)
        #expect(directory.knownDetails(for: device) == nil)
        async let first = directory.details(for: device)
        async let second = directory.details(for: device)
        let (one, two) = await (first, second)
        #expect(one?.manufacturer == "Google Inc.")
        #expect(one == two)
        await emulator.stop()
        #expect(await directory.details(for: device) == one)
        #expect(directory.knownDetails(for: device) == one)
        directory.forget(device)
        #expect(await directory.details(for: device) == nil, "asked again: nobody answers now")
        #expect(await DeviceDetailsDirectory(configuration: nil).details(for: device) == nil)
    }

    /// pychromecast's `dial.get_device_info` (HTTPS 8443, then HTTP 8008, on
    /// ports it does not let one change) reads the emulator's setup server,
    /// which listens on an address of its own on 127/8 for that.
    @Test(.enabled(if: NamespacePair.hasPychromecast, "needs python3 with pychromecast (make setup installs it)"))
    func pychromecastReadsTheSameDetails() async throws {
        let host = "127.0.0.\(Int.random(in: 100...250))"
        let emulator = try Self.emulator(name: "Den", host: host)
        try await emulator.start()
        try await emulator.startSetupServer(
            securePort: CastDevice.setupSecurePort, port: CastDevice.setupPort)
        let output = try await RealTimeTurns.take(.childProcesses) {
            try await onOwnThread {
                try NamespacePair.run(
                    ["/usr/bin/env", "python3", PychromecastInteropTests.script, "details", host, "\(emulator.port)"])
            }
        }
        await emulator.stop()
        let line = try #require(output.split(separator: "\n").last { $0.hasPrefix("{") })
        let report = try JSONValue(parsing: String(line))
        #expect(report["friendly_name"] == "Den")
        #expect(report["manufacturer"] == "Google Inc.")
        #expect(report["model_name"] == "Chromecast")
        #expect(report["cast_type"] == "cast")
        #expect(report["uuid"]?.stringValue?.replacingOccurrences(of: "-", with: "") == emulator.advertisement.id)
    }

    /// A port nothing listens on: bound, then closed.
    static func closedPort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(channel.localAddress?.port)
        try await channel.close()
        return port
    }
}

/// Answers every request with a 200 whose body is larger than a device's details may be.
private enum OversizedServer {
    static func start() async throws -> (channel: any Channel, port: Int) {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Replier()) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return (channel, channel.localAddress?.port ?? 0)
    }

    /// Replies once, at the first bytes of a request.
    private final class Replier: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        private var replied = false

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !self.replied else { return }
            self.replied = true
            let size = CastDeviceDetails.largestAnswer * 4
            var reply = context.channel.allocator.buffer(capacity: size + 100)
            reply.writeString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(size)\r\n\r\n")
            reply.writeRepeatingByte(UInt8(ascii: " "), count: size)
            context.writeAndFlush(Self.wrapOutboundOut(reply), promise: nil)
        }
    }
}
