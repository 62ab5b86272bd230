@_spi(Receiver) import CastDiscovery
import Testing

@testable import CastSpeakers

/// Sinks are named after their device, readably, as the desktop's sound
/// settings and `pactl` show them.
@Suite(.timeLimit(.minutes(1))) struct SinkNameTests {
    static func device(id: String, name: String) -> CastDevice {
        CastDevice(
            id: id, friendlyName: name, modelName: "Google Nest Mini", capabilities: [.audioOut], addresses: [],
            port: 8009)
    }

    @Test func aSinkIsNamedAfterItsDevice() {
        let names = [
            ("Kitchen speaker", "cast.kitchen_speaker"), ("Bob's  \"Den\" Mini", "cast.bob_s_den_mini"),
            ("Küche – oben", "cast.kuche_oben"), ("Living-Room TV 2", "cast.living-room_tv_2"),
        ]
        for (name, sink) in names {
            #expect(CastSpeakers.sinkName(for: Self.device(id: "e9d9a1b2c3d4", name: name)) == sink)
        }
    }

    @Test func aNameWithoutLettersOrDigitsFallsBackToTheId() {
        #expect(CastSpeakers.sinkName(for: Self.device(id: "E9D9A1B2", name: "客厅")) == "cast.e9d9a1b2")
        #expect(
            CastSpeakers.sinkName(for: CastSpeakersGroup(name: "Whole house", members: [])) == "cast.group.whole_house")
        #expect(CastSpeakers.sinkName(for: CastSpeakersGroup(name: "¿?", members: [])) == "cast.group.group")
    }
}
