// Sample: Remote Display of a scene drawn with OpenGL ES. Embeds
// CastRemoteDisplay with CastChannels and CastDiscovery (no CastCapture):
// makes an EGL context without a window (Mesa's surfaceless platform, in
// software where there is no GPU), launches the mirroring app, draws a
// gradient and a moving disc with a fragment shader 30 times a second for
// five seconds, reads each picture back as RGBA, converts it into a pooled
// buffer with PackedPictureConverter, and prints what was sent.
//
//   swift run sample-egl-screen HOST PORT

import CastChannels
import CastDiscovery
import CastRemoteDisplay
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 2, let port = Int(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: sample-egl-screen HOST PORT\n".utf8))
    exit(64)
}

// A TLS connection with the platform's receiver channel attached.
guard let address = IPAddress(arguments[0]) else {
    FileHandle.standardError.write(Data("sample-egl-screen: HOST must be an IP address\n".utf8))
    exit(64)
}
let link = try await CastDeviceLink.connect(to: CastDevice(knownHost: address, port: port))
let mirroring = try await link.receiver.launch(appID: CastApplicationID.mirroring)
guard let channel = RemoteDisplayChannel() else { exit(1) }
try await link.join(mirroring, attaching: [channel])

// 640x360, video only: the receiver may scale the offer down; draw at what it accepted.
let session = try await channel.beginSession(
    configuration: RemoteDisplayConfiguration(
        resolutions: [RemoteDisplayConfiguration.Resolution(width: 640, height: 360)], audio: nil))
let size = session.configuration.resolution
let scene = try GLScene(width: size.width, height: size.height)
FileHandle.standardError.write(Data("drawing with \(scene.renderer)\n".utf8))
_ = try await SceneStream(scene: scene, session: session).run(frames: 150)

// The last frames are still being encoded and sent: wait until two
// statistics in a row show the same count and nothing in flight.
var statistics = session.currentStatistics
var previous: RemoteDisplayStatistics?
for await update in session.statistics() {
    statistics = update
    if let previous, update.video?.framesInFlight == 0, update.video?.framesSent == previous.video?.framesSent {
        break
    }
    previous = update
}
print("sent \(statistics.video?.framesSent ?? 0) frames, \(statistics.videoBitrate / 1_000) kbit/s")
session.stop()
channel.detach()
await link.close()
