import CastRemoteDisplay
import Foundation

/// The media files `cast screen` streams: the bytes as a WAV file, then as a
/// Y4M video (through a file, as the reader takes a handle) of which up to
/// four frames are read into a pixel buffer.
func fuzzMediaFiles(_ bytes: [UInt8]) {
    _ = try? WAVFile(bytes: bytes)
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-media-\(getpid()).y4m").path
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)),
        let handle = FileHandle(forReadingAtPath: path)
    else { return }
    defer { try? handle.close() }
    guard let video = try? Y4MFile(handle: handle),
        var buffer = try? PixelBuffer(format: .i420, width: video.width, height: video.height)
    else { return }
    for _ in 0..<4 {
        guard (try? video.readFrame(into: &buffer)) == true else { break }
    }
}
