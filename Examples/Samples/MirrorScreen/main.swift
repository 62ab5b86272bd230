// Sample: this machine's screen and sound mirrored to a device. Embeds
// CastCapture (which brings CastSoundCapture and CastRemoteDisplay) and
// CastChannels: one DesktopMirror does the capture, the sound, the
// session and its statistics.
//
//   swift run sample-mirror-screen HOST[:PORT] [SECONDS]
//
// The screen is the X display in DISPLAY (or the desktop's portal in a
// Wayland session); the sound is what the default sound output plays
// (PulseAudio, or PipeWire's pulse server; PULSE_SERVER picks another).

import CastCapture
import CastChannels
import CastDiscovery
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
guard let address = arguments.first.flatMap(CastDeviceAddress.init) else {
    FileHandle.standardError.write(Data("usage: sample-mirror-screen HOST[:PORT] [SECONDS]\n".utf8))
    exit(64)
}
let seconds = arguments.dropFirst().first.flatMap(Double.init) ?? 10
let link = try await CastDeviceLink.connect(to: CastDevice(knownHost: address))
let mirror = try await DesktopMirror.start(
    on: link,
    configuration: DesktopMirror.Configuration(
        capture: ScreenCaptureConfiguration(
            source: .forCurrentSession(environment: ProcessInfo.processInfo.environment)),
        sound: DesktopAudioConfiguration()))
print("mirroring \(mirror.capture.sourceSize) as \(mirror.session.configuration.videoCodec)")
try await Task.sleep(for: .milliseconds(Int(seconds * 1_000)))
let outcome = await mirror.stop()
let video = outcome.statistics.video
let audio = outcome.statistics.audio
print("\(video?.framesSent ?? 0) video frames and \(audio?.framesSent ?? 0) sound frames sent")
await link.close()
