// Sample: Remote Display of frames the app renders itself. Embeds
// CastRemoteDisplay with CastChannels and CastDiscovery (no CastCapture):
// launches the mirroring app, then draws a moving square in BGRA, as a
// renderer would, converts each picture into a pooled pixel buffer with
// PackedPictureConverter, sends 30 fps for five seconds and prints the
// session's statistics.
//
//   swift run sample-rendered-screen HOST PORT

import CastChannels
import CastDiscovery
import CastRemoteDisplay
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 2, let port = Int(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: sample-rendered-screen HOST PORT\n".utf8))
    exit(64)
}

// A TLS connection with the platform's receiver channel attached.
guard let address = IPAddress(arguments[0]) else {
    FileHandle.standardError.write(Data("sample-rendered-screen: HOST must be an IP address\n".utf8))
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

/// The app's own picture, as a renderer leaves it: BGRA (blue, green, red,
/// alpha in memory, Cairo's ARGB32 on this machine), rows `stride` bytes
/// apart. A colour gradient, and a white square moving left to right.
let stride = size.width * 4
var picture = [UInt8](repeating: 0, count: stride * size.height)
func draw(frame index: Int, into picture: inout [UInt8]) {
    let side = size.height / 4
    let left = (index * 8) % max(size.width - side, 1)
    for row in 0..<size.height {
        for column in 0..<size.width {
            let inside = row >= side && row < 2 * side && column >= left && column < left + side
            let pixel = row * stride + column * 4
            picture[pixel] = inside ? 255 : UInt8(255 * row / size.height)  // blue
            picture[pixel + 1] = inside ? 255 : 64  // green
            picture[pixel + 2] = inside ? 255 : UInt8(255 * column / size.width)  // red
            picture[pixel + 3] = 255  // alpha
        }
    }
}

// Converts each picture into a pooled I420 frame with libyuv: no copy, no allocation per frame.
var converter = PackedPictureConverter()
let start = HostTime.now
for index in 0..<150 {
    let due = start.advanced(by: .milliseconds(index * 1_000 / 30))
    let wait = HostTime.now.duration(to: due)
    if wait > .zero { try await Task.sleep(for: wait) }
    guard var buffer = session.createPixelBuffer() else { continue }  // all buffers busy: skip a frame
    draw(frame: index, into: &picture)
    try picture.withUnsafeBytes { bytes in
        try converter.convert(
            PackedPicture(bytes: bytes, width: size.width, height: size.height, bytesPerRow: stride, format: .bgra),
            into: &buffer)
    }
    _ = try session.enqueueVideoFrame(buffer, pts: due)
}
// The last frames are still being encoded and sent: wait until two
// statistics in a row show the same count and nothing in flight.
// (The first statistics published may be from before the encoder's backlog drained.)
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
