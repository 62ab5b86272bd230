// Sample: a local film with its subtitles on a device found by name, then a
// seek. Embeds CastKit and CastLocalMedia: `LocalMediaPlayback` serves the
// film as the device can play it (converted on the fly when it must be),
// and its own text tracks go in the LOAD, the default one shown.
//
//   swift run sample-play-film NAME FILM INTERFACE [SECONDS]
//
// Discovery multicasts on the interface you name: on a shared machine use
// loopback (`lo`) or an interface inside a network namespace.

import CastKit
import CastLocalMedia
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: sample-play-film NAME FILM INTERFACE [SECONDS]\n".utf8))
    exit(64)
}
let discovery = DiscoveryConfiguration(interfaces: .named([arguments[2]]), addressFamilies: .ipv4)
guard
    let device = try await DiscoveryManager.firstDevice(
        named: arguments[0], configuration: discovery, within: .seconds(10)),
    let address = device.addresses.first
else {
    FileHandle.standardError.write(Data("no device named \(arguments[0]) answered on \(arguments[2])\n".utf8))
    exit(69)
}
let manager = SessionManager()
let session = try await manager.startSession(on: device)
guard let media = session.remoteMediaClient else { exit(70) }
var configuration = LocalMediaPlayback.Configuration()
configuration.deviceModel = device.modelName
let film = PlayItem(source: .file(URL(fileURLWithPath: arguments[1])))
let playback = try await LocalMediaPlayback.start(
    [film], on: media, toward: address.description, configuration: configuration
) { print($0) }
let tracks = playback.status?.media?.tracks?.filter { $0.kind == .text } ?? []
print("playing \(arguments[1]) with \(tracks.count) subtitle track(s)")
if let seconds = arguments.dropFirst(3).first.flatMap(Double.init) {
    print("at \(try await media.seek(MediaSeekOptions(interval: seconds))?.currentTime ?? 0) s")
}
await manager.endSession(stoppingApplication: false)
await playback.close()
