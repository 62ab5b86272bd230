// Sample: Remote Display of frames the app renders itself. Embeds
// CastRemoteDisplay with CastChannels and CastTransport: launches the
// mirroring app, then draws a moving square into pooled pixel buffers at
// 30 fps for five seconds and prints the session's statistics.
//
//   swift run sample-rendered-screen HOST PORT

import CastChannels
import CastRemoteDisplay
import CastTransport
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 2, let port = Int(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: sample-rendered-screen HOST PORT\n".utf8))
    exit(64)
}

let connection = CastConnection(host: arguments[0], port: port)
try await connection.connect()
try await connection.openVirtualConnection(to: "receiver-0")
let receiver = ReceiverChannel()
receiver.attach(to: connection, destinationID: "receiver-0")
let mirroring = try await receiver.launch(appID: CastApplicationID.mirroring)
guard let transportID = mirroring.transportID else { exit(1) }
try await connection.openVirtualConnection(to: transportID)
guard let channel = RemoteDisplayChannel() else { exit(1) }
channel.attach(to: connection, destinationID: transportID)

// 640x360, video only: the receiver may scale the offer down; draw at what it accepted.
let session = try await channel.beginSession(
    configuration: RemoteDisplayConfiguration(
        resolutions: [RemoteDisplayConfiguration.Resolution(width: 640, height: 360)], audio: nil))
let size = session.configuration.resolution

/// Grey background, a white square moving left to right (I420: Y then U and V).
func draw(frame index: Int, into buffer: inout PixelBuffer) {
    let side = size.height / 4
    let left = (index * 8) % max(size.width - side, 1)
    let stride = buffer.bytesPerRow(ofPlane: 0)
    buffer.withUnsafeMutableBytes(ofPlane: 0) { luma in
        for row in 0..<size.height {
            for column in 0..<size.width {
                let inside = row >= side && row < 2 * side && column >= left && column < left + side
                luma[row * stride + column] = inside ? 235 : 90
            }
        }
    }
    for plane in 1...2 {
        _ = buffer.withUnsafeMutableBytes(ofPlane: plane) { $0.initializeMemory(as: UInt8.self, repeating: 128) }
    }
}

let start = HostTime.now
for index in 0..<150 {
    let due = start.advanced(by: .milliseconds(index * 1_000 / 30))
    let wait = HostTime.now.duration(to: due)
    if wait > .zero { try await Task.sleep(for: wait) }
    guard var buffer = session.createPixelBuffer() else { continue }  // all buffers busy: skip a frame
    draw(frame: index, into: &buffer)
    _ = try session.enqueueVideoFrame(buffer, pts: due)
}
let statistics = session.currentStatistics
print("sent \(statistics.video?.framesSent ?? 0) frames, \(statistics.videoBitrate / 1_000) kbit/s")
session.stop()
channel.detach()
receiver.detach()
await connection.close()
