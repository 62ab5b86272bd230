import CastDiscovery
import CastSpeakers
import Foundation
import Testing

/// The settings file of `cast speakers`: what each line sets, and a clear
/// error naming the line for anything else.
@Suite(.timeLimit(.minutes(1))) struct CastSpeakersFileTests {
    @Test func eachOptionSetsItsValue() throws {
        let file = try CastSpeakersFile(
            parsing: """
                # Only these two get a sink of their own.
                only = Kitchen
                  only=Living Room TV   # the TV too
                group = Downstairs = Kitchen, Living Room TV
                group = Everywhere=Kitchen,Den,Living Room TV

                audio-server = unix:/run/user/1000/pulse/native
                grace = 2.5
                bitrate = 160
                delay = 300
                """)
        #expect(file.only == ["Kitchen", "Living Room TV"])
        #expect(
            file.groups == [
                CastSpeakersGroup(name: "Downstairs", members: ["Kitchen", "Living Room TV"]),
                CastSpeakersGroup(name: "Everywhere", members: ["Kitchen", "Den", "Living Room TV"]),
            ])
        #expect(file.soundServer == "unix:/run/user/1000/pulse/native")
        #expect(file.gracePeriod == .milliseconds(2_500))
        #expect(file.bitrate == 160_000)
        #expect(file.targetDelay == .milliseconds(300))
        #expect(try CastSpeakersFile(parsing: "") == CastSpeakersFile())
        #expect(try CastSpeakersFile(parsing: "\n# nothing\n   \n") == CastSpeakersFile())
    }

    /// The command line's options override the file's, each by itself (`only` and `group` as wholes),
    /// and the settings become a configuration with the defaults for what neither gives.
    @Test func optionsOverrideTheFileAndBecomeAConfiguration() throws {
        let file = try CastSpeakersFile(parsing: "only = Kitchen\ngrace = 30\nbitrate = 160\ndelay = 300")
        var options = CastSpeakersFile()
        options.only = ["Den", "tv-1234"]
        options.targetDelay = .milliseconds(250)
        let merged = file.overridden(by: options)
        #expect(merged.only == ["Den", "tv-1234"])
        #expect(merged.gracePeriod == .seconds(30) && merged.bitrate == 160_000)
        #expect(merged.targetDelay == .milliseconds(250))
        #expect(file.overridden(by: CastSpeakersFile()) == file)

        let configuration = CastSpeakersConfiguration(settings: merged)
        #expect(configuration.gracePeriod == .seconds(30) && configuration.bitrate == 160_000)
        #expect(configuration.targetDelay == .milliseconds(250) && configuration.soundServer == nil)
        let defaults = CastSpeakersConfiguration(settings: CastSpeakersFile())
        #expect(defaults.gracePeriod == .seconds(15) && defaults.bitrate == 128_000)
        #expect(defaults.targetDelay == .milliseconds(400))

        func speaker(_ name: String, id: String, sound: Bool = true) -> CastDevice {
            CastDevice(
                id: id, friendlyName: name, modelName: "Nest Audio", capabilities: sound ? [.audioOut] : [],
                addresses: [IPAddress("192.0.2.7")!], port: 8_009)
        }
        #expect(configuration.includes(speaker("den", id: "a1")), "by name, either case")
        #expect(configuration.includes(speaker("Attic", id: "TV-1234")), "by id")
        #expect(!configuration.includes(speaker("Kitchen", id: "b2")), "the file's only is replaced")
        #expect(!configuration.includes(speaker("Den", id: "a1", sound: false)), "a device without sound")
        #expect(configuration.includes(CastDevice(knownHost: IPAddress("192.0.2.9")!)) == false)
        #expect(defaults.includes(CastDevice(knownHost: IPAddress("192.0.2.9")!)), "an address, before its records")
        #expect(
            defaults.includes(speaker("Kitchen", id: "b2")) && !defaults.includes(speaker("X", id: "c", sound: false)))
    }

    @Test(arguments: [
        ("grace = 0", "line 1: grace must be 1…3600 seconds, not 0"),
        ("\ngrace = forever", "line 2: grace must be 1…3600 seconds, not forever"),
        ("bitrate = 511", "line 1: bitrate must be 6…510 kbit/s, not 511"),
        ("delay = -5", "line 1: delay must be 1…5000 ms, not -5"),
        ("delay = 100\ndelay = 200", "line 2: delay is given twice"),
        ("volume = 11", "line 1: volume is not an option here"),
        ("only Kitchen", "line 1: only Kitchen is not OPTION = VALUE"),
        ("only =", "line 1: only has no value"),
        ("group = Both", "line 1: a group is NAME=DEVICE,DEVICE,…, not Both"),
        ("group = =Kitchen", "line 1: a group is NAME=DEVICE,DEVICE,…"),
        ("group = Both=Kitchen,,Den", "line 1: a group is NAME=DEVICE,DEVICE,…"),
    ])
    func anythingElseIsATypedErrorNamingItsLine(text: String, message: String) {
        let error = #expect(throws: SpeakersError.self) { try CastSpeakersFile(parsing: text) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
    }

    @Test func aFileIsReadFromItsPlaceAndAMissingOneSetsNothing() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("speakers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("speakers.conf")
        #expect(try CastSpeakersFile(contentsOf: url) == CastSpeakersFile())
        try "grace = 20\n".write(to: url, atomically: true, encoding: .utf8)
        #expect(try CastSpeakersFile(contentsOf: url).gracePeriod == .seconds(20))
        try "grace = 20\nbitrate = x\n".write(to: url, atomically: true, encoding: .utf8)
        let error = #expect(throws: SpeakersError.self) { try CastSpeakersFile(contentsOf: url) }
        #expect(error?.message.hasPrefix("\(url.path), line 2: bitrate") == true, "\(String(describing: error))")
        // Not text, or too large for a few lines a person writes: refused, not read.
        try Data([0xFF, 0xFE, 0x00]).write(to: url)
        #expect(throws: SpeakersError.self) { try CastSpeakersFile(contentsOf: url) }
        try Data(repeating: 0x23, count: CastSpeakersFile.maximumSize + 1).write(to: url)
        #expect(throws: SpeakersError.self) { try CastSpeakersFile(contentsOf: url) }
        // A folder where the file should be.
        try FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        #expect(throws: SpeakersError.self) { try CastSpeakersFile(contentsOf: url) }
    }

    @Test func theDefaultPlaceIsInTheXDGConfigurationDirectory() {
        #expect(CastSpeakersFile.defaultLocation.path.hasSuffix("/cast/speakers.conf"))
    }
}
