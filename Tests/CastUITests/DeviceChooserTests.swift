import CastEmulator
import CastKit
import CastTestSupport
import CastUI
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A UDP socket on an ephemeral port of every IPv4 address, bound without
/// address sharing — as avahi-daemon holds 5353 — so nobody else can bind it.
/// It lives in the namespace of the thread that makes it.
private final class HeldUDPPort: Sendable {
    let descriptor: Int32
    let port: Int

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard descriptor >= 0, bound == 0, named == 0 else { throw POSIXError(.EADDRINUSE) }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(self.descriptor) }
}

@Suite(.timeLimit(.minutes(10))) struct DeviceChooserTests {
    /// Seed 001 and 003: the receiver app id filters discovery — a device that cannot run it is not listed.
    @Test func onlyDevicesThatRunTheAppAreListed() async throws {
        let emulator = try CastEmulator(configuration: CastEmulatorConfiguration(name: "Kitchen"), logger: quietLogger)
        try await emulator.start()
        defer { Task { await emulator.stop() } }
        // A second device, which runs the app: asked only after the first has answered.
        let hall = try CastEmulator(
            configuration: CastEmulatorConfiguration(
                name: "Hall",
                applications: [EmulatedApplication(appID: "ABCD1234", displayName: "App", namespaces: [])]),
            logger: quietLogger)
        try await hall.start()
        defer { Task { await hall.stop() } }
        var options = uiOptions(applicationID: "ABCD1234", joining: [emulator, hall])
        options.availabilityChecksAtOnce = 1
        let context = CastContext(options: options)
        let filtered = DeviceChooserModel(context: context)
        let unfiltered = DeviceChooserModel(context: context, filtersByApplication: false)
        let filteredLog = StateLog(filtered.updates())
        let observed = emulator.events()
        await context.discoveryManager.addKnownHost(
            try #require(IPAddress("127.0.0.1")), port: emulator.port, friendlyName: "Kitchen")

        let shown = await StateLog(unfiltered.updates()).wait { $0.entries.count == 1 }
        #expect(shown?.entries.first?.device.friendlyName == "Kitchen")
        // The filtered chooser asked the device (GET_APP_AVAILABILITY for the app) and left it out.
        let asked = await first(observed) { event in
            guard case .messageReceived(_, let message) = event, let text = message.text else { return false }
            return text.contains("GET_APP_AVAILABILITY") && text.contains("ABCD1234")
        }
        #expect(asked != nil)
        // One check at a time: the second device is asked once the first's answer is in, so the
        // chooser that lists it has that answer too.
        await context.discoveryManager.addKnownHost(
            try #require(IPAddress("127.0.0.1")), port: hall.port, friendlyName: "Hall")
        let listed = await filteredLog.wait { !$0.entries.isEmpty }
        #expect(listed?.entries.map(\.device.friendlyName) == ["Hall"])
        #expect(filteredLog.all.allSatisfy { $0.entries.allSatisfy { $0.device.friendlyName != "Kitchen" } })
        withExtendedLifetime((filtered, unfiltered)) {}
    }

    /// Issue 34: with a custom app id, the Cast button, the introduction
    /// prompt, the context's list and the chooser count the same devices —
    /// the one that can run the app, not the one that cannot. Before, the
    /// button said "devices available" and the prompt showed for a device
    /// the chooser left out.
    @Test func theButtonThePromptAndTheListAgreeWithTheChooser() async throws {
        let kitchen = try CastEmulator(configuration: CastEmulatorConfiguration(name: "Kitchen"), logger: quietLogger)
        let hall = try CastEmulator(
            configuration: CastEmulatorConfiguration(
                name: "Hall",
                applications: [EmulatedApplication(appID: "ABCD1234", displayName: "App", namespaces: [])]),
            logger: quietLogger)
        try await kitchen.start()
        try await hall.start()
        // One check at a time: the hall is asked once the kitchen's answer is in.
        var options = uiOptions(applicationID: "ABCD1234", joining: [kitchen, hall])
        options.availabilityChecksAtOnce = 1
        let context = CastContext(options: options)
        let flag = FileManager.default.temporaryDirectory.appendingPathComponent("intro-\(UUID().uuidString)")
        let button = CastButtonModel(context: context)
        let prompt = IntroductionPrompt(context: context, flagFile: flag)
        let chooser = DeviceChooserModel(context: context)
        let buttonLog = StateLog(button.updates())
        let promptLog = StateLog(prompt.updates())
        let listLog = StateLog(context.applicationDevices.updates())
        let chooserLog = StateLog(chooser.updates())

        // The device that cannot run the app first: once it has answered, it
        // is found but nothing counts it (before, the button said "devices
        // available" and the prompt showed).
        await context.discoveryManager.addKnownHost(
            try #require(IPAddress("127.0.0.1")), port: kitchen.port, friendlyName: "Kitchen")
        let answered = try await waitUntil(within: .seconds(30)) {
            guard let device = context.discoveryManager.devices.first else { return false }
            return context.applicationDevices.availability(of: device) == .unavailable
        }
        #expect(answered)
        #expect(context.discoveryManager.devices.count == 1)
        #expect(button.buttonState.castState == .noDevicesAvailable)
        #expect(prompt.shouldShow == false)
        #expect(chooser.chooserState.entries.isEmpty)
        await context.discoveryManager.addKnownHost(
            try #require(IPAddress("127.0.0.1")), port: hall.port, friendlyName: "Hall")
        let listed = await listLog.wait { !$0.isEmpty }
        #expect(listed?.map(\.friendlyName) == ["Hall"])
        #expect(await buttonLog.wait { $0.castState == .notConnected } != nil)
        #expect(await promptLog.wait { $0 } != nil)
        #expect(await chooserLog.wait { !$0.entries.isEmpty }?.entries.map(\.device.friendlyName) == ["Hall"])
        #expect(context.discoveryManager.devices.count == 2)
        // Nothing ever counted the kitchen alone.
        #expect(listLog.all.allSatisfy { $0.allSatisfy { $0.friendlyName == "Hall" } })
        #expect(chooserLog.all.allSatisfy { $0.entries.allSatisfy { $0.device.friendlyName == "Hall" } })
        #expect(context.applicationDevices.availability(of: try #require(listed?.first)) == .available)
        let kitchenDevice = try #require(context.discoveryManager.devices.first { $0.friendlyName == "Kitchen" })
        #expect(context.applicationDevices.availability(of: kitchenDevice) == .unavailable)
        await chooser.close()
        await context.stop()
        await kitchen.stop()
        await hall.stop()
        try? FileManager.default.removeItem(at: flag)
    }

    /// In a namespace of its own: nobody answers on the veth, then the veth goes down.
    @Test(.enabled(if: NamespacePair.isAvailable, "needs root and iproute2 to create network namespaces"))
    func anEmptyListSaysNothingAnswersThenThatThereIsNoNetwork() async throws {
        try await NamespacePair.with { pair in
            let group = try pair.eventLoopGroup(in: pair.a)
            var options = uiOptions()
            options.discovery.interfaces = .named([pair.interface(in: pair.a)])
            options.discovery.interfacePollInterval = .milliseconds(100)
            let context = CastContext(options: options, eventLoopGroup: group)
            let chooser = DeviceChooserModel(context: context, quietPeriod: .milliseconds(300))
            let button = CastButtonModel(context: context)
            let buttonLog = StateLog(button.updates())
            let log = StateLog(chooser.updates())
            #expect(button.buttonState.isVisible == false, "not started: no network to look on")
            await chooser.open()
            // Open, it searches first (the quiet period may be over by the time this looks).
            #expect(await log.wait { $0.isOpen } != nil)
            #expect(log.all.contains { $0.isOpen && $0.noDevicesReason == .searching }, "\(log.all)")
            #expect(await context.discoveryManager.queriedInterfaces == [pair.interface(in: pair.a)])
            let quiet = await log.wait { $0.noDevicesReason == .nothingAnswers }
            #expect(quiet?.noDevicesReason?.hint.contains("firewall") == true)
            // As the SDK since 4.6: on a network that can have devices the Cast button shows, with none found.
            let shown = await buttonLog.wait { $0.isVisible }
            #expect(shown?.castState == .noDevicesAvailable)
            #expect(shown?.label == "No Cast devices found")

            try pair.setLink(in: pair.a, up: false)
            let down = await log.wait { $0.noDevicesReason == .noNetworkInterface }
            #expect(down?.noDevicesReason?.hint.contains("network") == true)
            // With no network left, it hides.
            #expect(await buttonLog.wait { !$0.isVisible } != nil)
            button.close()
            await chooser.close()
            await context.stop()
            try await group.shutdownGracefully()
        }
    }

    /// An open chooser asks each device it lists for its manufacturer and model, once.
    @Test func entriesShowTheManufacturerAndModel() async throws {
        let emulator = try CastEmulator(
            configuration: CastEmulatorConfiguration(name: "Kitchen", profile: .nestHub), logger: quietLogger)
        try await emulator.start()
        defer { Task { await emulator.stop() } }
        try await emulator.startSetupServer()
        let ports = try #require(emulator.setupPorts)
        var options = uiOptions(joining: [emulator])
        options.deviceDetails = CastDeviceDetails.FetchConfiguration(securePort: ports.secure, port: ports.plain)
        let context = CastContext(options: options)
        let chooser = DeviceChooserModel(context: context)
        let log = StateLog(chooser.updates())
        await chooser.open()
        await context.discoveryManager.addKnownHost(
            try #require(IPAddress("127.0.0.1")), port: emulator.port, friendlyName: "Kitchen")
        let listed = try #require(await log.wait { $0.entries.first?.details != nil })
        let entry = try #require(listed.entries.first)
        #expect(entry.details?.manufacturer == "Google Inc.")
        #expect(entry.details?.modelName == "Google Nest Hub")
        #expect(entry.modelText == "Google Inc. Google Nest Hub")
        #expect(context.deviceDetails.knownDetails(for: entry.device) == entry.details)
        await chooser.close()
        await context.stop()
    }

    /// Another program holding the mDNS port without sharing it (avahi-daemon does) is diagnosed.
    @Test(.enabled(if: NamespacePair.isAvailable, "needs root and iproute2 to create network namespaces"))
    func aPortHeldByAnotherProgramIsDiagnosed() async throws {
        try await NamespacePair.with { pair in
            let group = try pair.eventLoopGroup(in: pair.a)
            let held = try await group.next().submit { try HeldUDPPort() }.get()
            var options = uiOptions()
            options.discovery.interfaces = .named([pair.interface(in: pair.a)])
            options.discovery.addressFamilies = .ipv4
            options.discovery.port = held.port
            let context = CastContext(options: options, eventLoopGroup: group)
            let chooser = DeviceChooserModel(context: context)
            await chooser.open()
            guard case .cannotListen(let detail)? = chooser.chooserState.noDevicesReason else {
                Issue.record("expected cannotListen, got \(String(describing: chooser.chooserState.noDevicesReason))")
                return
            }
            #expect(detail.contains("no mDNS socket"))
            #expect(chooser.chooserState.noDevicesReason?.hint.contains("5353") == true)
            await chooser.close()
            withExtendedLifetime(held) {}
            try await group.shutdownGracefully()
        }
    }

    /// The introduction shows once per user: when the first device appears, until marked shown.
    @Test func theIntroductionShowsOnceWhenTheFirstDeviceAppears() async throws {
        let flag = FileManager.default.temporaryDirectory.appendingPathComponent(
            "cast-ui-\(UUID().uuidString)/introduction-shown")
        let context = CastContext(options: uiOptions())
        let prompt = IntroductionPrompt(context: context, flagFile: flag)
        let log = StateLog(prompt.updates())
        #expect(!prompt.shouldShow)
        await context.discoveryManager.addKnownHost(try #require(IPAddress("127.0.0.1")), port: 1)
        #expect(await log.wait { $0 } == true)
        try prompt.markShown()
        #expect(!prompt.shouldShow)
        #expect(FileManager.default.fileExists(atPath: flag.path))

        let again = IntroductionPrompt(context: context, flagFile: flag)
        let againLog = StateLog(again.updates())
        // A prompt never shown, made just after it, hears of the device already listed and shows;
        // the one shown before stays hidden.
        let fresh = IntroductionPrompt(
            context: context,
            flagFile: FileManager.default.temporaryDirectory.appendingPathComponent(
                "cast-ui-\(UUID().uuidString)/introduction-shown"))
        let freshLog = StateLog(fresh.updates())
        #expect(await freshLog.wait { $0 } == true)
        #expect(!again.shouldShow)
        #expect(againLog.all.allSatisfy { !$0 })
    }
}
