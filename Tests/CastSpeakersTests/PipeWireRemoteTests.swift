import Foundation
import Testing

@testable import CastSpeakers

/// Which PipeWire a pulse server's sinks are made on: its own socket, beside the pulse socket.
@Suite(.timeLimit(.minutes(1))) struct PipeWireRemoteTests {
    @Test func pulseAudioItselfHasNone() {
        #expect(PipeWireRemote.behind(serverName: "pulseaudio", address: nil) == nil)
    }

    @Test func theUsersOwnIsTheDefaultRemote() {
        #expect(
            PipeWireRemote.behind(serverName: "PulseAudio (on PipeWire 0.3.65)", address: nil)
                == PipeWireRemote(socket: nil))
    }

    @Test func aServerAtAPathHasItsPipeWireInTheRuntimeDirectory() throws {
        let runtime = FileManager.default.temporaryDirectory.appendingPathComponent("cast-pw-\(UUID().uuidString)")
        try FileManager.default.createDirectory(
            at: runtime.appendingPathComponent("pulse"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: runtime) }
        let name = "PulseAudio (on PipeWire 0.3.65)"
        let address = "unix:\(runtime.path)/pulse/native"
        // No socket there: null sinks, as on PulseAudio.
        #expect(PipeWireRemote.behind(serverName: name, address: address) == nil)
        #expect(
            FileManager.default.createFile(atPath: runtime.appendingPathComponent("pipewire-0").path, contents: nil))
        #expect(
            PipeWireRemote.behind(serverName: name, address: address)
                == PipeWireRemote(socket: runtime.appendingPathComponent("pipewire-0").path))
        // A server on another machine is not this one's PipeWire.
        #expect(PipeWireRemote.behind(serverName: name, address: "tcp:10.0.0.5:4713") == nil)
    }
}
