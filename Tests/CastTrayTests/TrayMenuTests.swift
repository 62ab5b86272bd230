@_spi(Receiver) import CastDiscovery
import CastKit
import CastTray
import CastUI
import Testing

/// The tray's menu from CastUI's states: which devices each action lists,
/// what a stream in progress changes, the media lines, the icon, and ids
/// that stay put from one menu to the next.
@Suite(.timeLimit(.minutes(1)))
struct TrayMenuTests {
    static func device(_ name: String, _ capabilities: CastDeviceCapabilities, _ last: Int) -> CastDevice {
        CastDevice(
            id: "id-\(name)", friendlyName: name, modelName: "Model", capabilities: capabilities,
            addresses: [IPAddress("10.0.0.\(last)")!], port: 8009)
    }

    static let tv = device("Living Room TV", [.videoOut, .audioOut], 2)
    static let speaker = device("Kitchen speaker", [.audioOut], 3)
    /// A known host that has not answered DNS-SD: capabilities unknown.
    static let unknown = device("10.0.0.9", [], 9)

    static func chooser(_ devices: [CastDevice], connectedTo device: CastDevice? = nil) -> DeviceChooserState {
        var state = DeviceChooserState.initial
        state.entries = devices.map { DeviceChooserState.Entry(device: $0) }
        state.noDevicesReason = devices.isEmpty ? .searching : nil
        state.connection = device.map {
            DeviceChooserState.Connection(device: $0, isConnecting: false, applicationName: nil)
        }
        return state
    }

    static func labels(_ item: TrayMenu.Item) -> [String] {
        item.children.map { $0.isSeparator ? "—" : $0.label }
    }

    @Test func eachActionListsTheDevicesThatCanRunIt() throws {
        var ids = TrayMenu.Identifiers()
        let menu = TrayMenu(
            button: CastButtonState(castState: .notConnected), chooser: Self.chooser([Self.speaker, Self.tv]),
            controls: MediaControls(status: nil), casting: nil, offersWindowChoice: true, identifiers: &ids)
        #expect(
            Self.labels(menu.root) == [
                "Cast to a device", "Mirror screen", "Mirror a window…", "Send this computer's sound", "—",
                "Stop casting", "Quit",
            ])
        let screen = try #require(menu.root.children.first { $0.label == "Mirror screen" })
        #expect(screen.children.map(\.label) == ["Living Room TV"])
        #expect(screen.children.first?.action == .mirrorScreen(Self.tv))
        let window = try #require(menu.root.children.first { $0.label == "Mirror a window…" })
        #expect(window.children.first?.action == .mirrorWindow(Self.tv))
        let sound = try #require(menu.root.children.first { $0.label == "Send this computer's sound" })
        #expect(sound.children.map(\.label) == ["Kitchen speaker", "Living Room TV"])
        #expect(sound.children.map(\.action) == [.sendSound(Self.speaker), .sendSound(Self.tv)])
        // Nothing to stop yet; the status line is text.
        #expect(menu.root.children.first { $0.label == "Stop casting" }?.isEnabled == false)
        #expect(menu.root.children.first?.isEnabled == false)
        #expect(menu.iconName == "cast")
        #expect(menu.isActive)
        #expect(menu.tooltip == "Cast to a device")
    }

    /// Where the desktop makes a second screen, "Extend to" lists the
    /// devices with a screen, beside "Mirror screen"; the stream names itself.
    @Test func whereTheDesktopExtendsExtendToListsTheScreens() throws {
        var ids = TrayMenu.Identifiers()
        let menu = TrayMenu(
            button: CastButtonState(castState: .notConnected), chooser: Self.chooser([Self.speaker, Self.tv]),
            controls: MediaControls(status: nil), casting: nil, offersWindowChoice: true, offersExtension: true,
            identifiers: &ids)
        #expect(
            Self.labels(menu.root) == [
                "Cast to a device", "Mirror screen", "Mirror a window…", "Extend to", "Send this computer's sound",
                "—", "Stop casting", "Quit",
            ])
        let extend = try #require(menu.root.children.first { $0.label == "Extend to" })
        #expect(extend.children.map(\.label) == ["Living Room TV"])
        #expect(extend.children.first?.action == .extendScreen(Self.tv))
        let casting = TrayCasting(kind: .extendedScreen, deviceName: "Living Room TV", isStarted: false)
        #expect(casting.label == "Starting to extend the desktop to Living Room TV…")
        #expect(
            TrayCasting(kind: .extendedScreen, deviceName: "Living Room TV", isStarted: true).label
                == "Extending the desktop to Living Room TV")
        #expect(
            TrayCasting(kind: .sound, deviceName: "Kitchen", isStarted: true).label
                == "Sending this computer's sound to Kitchen")
        var busy = TrayMenu.Identifiers()
        let streaming = TrayMenu(
            button: CastButtonState(castState: .notConnected), chooser: Self.chooser([Self.tv]),
            controls: MediaControls(status: nil), casting: casting, offersWindowChoice: false, offersExtension: true,
            identifiers: &busy)
        #expect(streaming.root.children.first { $0.label == "Extend to" }?.isEnabled == false)
        #expect(streaming.tooltip == "Starting to extend the desktop to Living Room TV…")
    }

    @Test func withNoDevicesEachActionSaysSoAndWithoutAPickerThereIsNoWindowItem() throws {
        var ids = TrayMenu.Identifiers()
        let menu = TrayMenu(
            button: CastButtonState(castState: .noDevicesAvailable, isVisible: false), chooser: Self.chooser([]),
            controls: MediaControls(status: nil), casting: nil, offersWindowChoice: false, identifiers: &ids)
        #expect(!Self.labels(menu.root).contains("Mirror a window…"))
        #expect(!Self.labels(menu.root).contains("Extend to"))
        let screen = try #require(menu.root.children.first { $0.label == "Mirror screen" })
        #expect(!screen.isEnabled)
        #expect(screen.children.map(\.label) == ["No devices found"])
        #expect(screen.children.first?.action == nil)
        #expect(!menu.isActive)
        #expect(menu.root.children.first?.label == "No Cast devices found")
    }

    @Test func aDeviceWhoseCapabilitiesAreUnknownIsOfferedForEachAction() throws {
        var ids = TrayMenu.Identifiers()
        let menu = TrayMenu(
            button: CastButtonState(castState: .noDevicesAvailable, isVisible: false),
            chooser: Self.chooser([Self.unknown]), controls: MediaControls(status: nil), casting: nil,
            offersWindowChoice: false, identifiers: &ids)
        let actions = menu.root.children.flatMap(\.children).compactMap(\.action)
        #expect(actions == [.mirrorScreen(Self.unknown), .sendSound(Self.unknown)])
        // Listed, so the icon shows though the button would hide.
        #expect(menu.isActive)
    }

    @Test func aStreamInProgressNamesItselfDisablesNewStreamsAndCanBeStopped() throws {
        var ids = TrayMenu.Identifiers()
        let starting = TrayCasting(kind: .screen, deviceName: "Living Room TV", isStarted: false)
        let menu = TrayMenu(
            button: CastButtonState(castState: .notConnected), chooser: Self.chooser([Self.tv]),
            controls: MediaControls(status: nil), casting: starting, offersWindowChoice: false, identifiers: &ids)
        #expect(menu.root.children.first?.label == "Starting to mirror the screen to Living Room TV…")
        #expect(menu.iconName == "cast-connecting")
        let screen = try #require(menu.root.children.first { $0.label == "Mirror screen" })
        #expect(!screen.isEnabled && screen.children.allSatisfy { !$0.isEnabled })
        #expect(menu.root.children.first { $0.label == "Stop casting" }?.isEnabled == true)

        var started = starting
        started.isStarted = true
        let running = TrayMenu(
            button: CastButtonState(castState: .notConnected), chooser: Self.chooser([Self.tv]),
            controls: MediaControls(status: nil), casting: started, offersWindowChoice: false, identifiers: &ids)
        #expect(running.tooltip == "Mirroring the screen to Living Room TV")
        #expect(running.iconName == "cast-connected")
        let sound = TrayCasting(kind: .sound, deviceName: "Kitchen speaker", isStarted: true)
        #expect(sound.label == "Sending this computer's sound to Kitchen speaker")
    }

    @Test func theSessionsMediaCanBePausedAndStoppedWhereItsControlsAllow() throws {
        var ids = TrayMenu.Identifiers()
        var controls = MediaControls(status: nil)
        controls.shouldAppear = true
        controls.title = "Big Buck Bunny"
        controls.primaryAction = .pause
        controls.enabledControls = [.togglePlayback]
        let menu = TrayMenu(
            button: CastButtonState(castState: .connected, deviceName: "Living Room TV"),
            chooser: Self.chooser([Self.tv], connectedTo: Self.tv), controls: controls, casting: nil,
            offersWindowChoice: false, identifiers: &ids)
        #expect(menu.root.children.first?.label == "Casting to Living Room TV")
        #expect(menu.iconName == "cast-connected")
        let pause = try #require(menu.root.children.first { $0.action == .togglePlayback })
        #expect(pause.label == "Pause Big Buck Bunny" && pause.isEnabled)
        let stop = try #require(menu.root.children.first { $0.action == .stopMedia })
        #expect(!stop.isEnabled)  // the media does not allow it
        #expect(menu.root.children.first { $0.label == "Stop casting" }?.isEnabled == true)
        controls.primaryAction = .play
        let paused = TrayMenu(
            button: CastButtonState(castState: .connected, deviceName: "Living Room TV"),
            chooser: Self.chooser([Self.tv], connectedTo: Self.tv), controls: controls, casting: nil,
            offersWindowChoice: false, identifiers: &ids)
        #expect(paused.root.children.first { $0.action == .togglePlayback }?.label == "Play Big Buck Bunny")
        #expect(paused.root.children.first { $0.action == .togglePlayback }?.id == pause.id)
    }

    @Test func anItemKeepsItsIDWhenDevicesComeAndGo() throws {
        var ids = TrayMenu.Identifiers()
        let before = TrayMenu(
            button: CastButtonState(castState: .notConnected), chooser: Self.chooser([Self.tv]),
            controls: MediaControls(status: nil), casting: nil, offersWindowChoice: false, identifiers: &ids)
        let after = TrayMenu(
            button: CastButtonState(castState: .notConnected), chooser: Self.chooser([Self.speaker, Self.tv]),
            controls: MediaControls(status: nil), casting: nil, offersWindowChoice: false, identifiers: &ids)
        func id(_ menu: TrayMenu, _ action: TrayAction) -> Int32? {
            menu.root.children.flatMap(\.children).first { $0.action == action }?.id
        }
        #expect(id(before, .mirrorScreen(Self.tv)) == id(after, .mirrorScreen(Self.tv)))
        #expect(id(before, .sendSound(Self.tv)) == id(after, .sendSound(Self.tv)))
        #expect(
            before.root.children.first { $0.action == .quit }?.id
                == after.root.children.first { $0.action == .quit }?.id)
        // Every id in a menu is different.
        func all(_ item: TrayMenu.Item) -> [Int32] { [item.id] + item.children.flatMap(all) }
        #expect(Set(all(after.root)).count == all(after.root).count)
    }
}
