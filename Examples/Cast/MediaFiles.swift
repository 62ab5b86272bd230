import CastRemoteDisplay
import Foundation

/// A YUV4MPEG2 (`.y4m`) video read frame by frame: 8-bit 4:2:0 only, the
/// format `ffmpeg -pix_fmt yuv420p out.y4m` writes.
final class Y4MFile {
    let width: Int
    let height: Int
    let frameRate: Double
    private let handle: FileHandle
    private let frameBytes: Int

    /// Opens `path` and reads its header.
    init(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CommandFailure(.badInput, "cannot open \(path)")
        }
        self.handle = handle
        guard let header = try Self.readLine(handle), header.hasPrefix("YUV4MPEG2 ") else {
            throw CommandFailure(.badInput, "\(path) is not a YUV4MPEG2 file")
        }
        var width = 0
        var height = 0
        var rate = 30.0
        for field in header.split(separator: " ").dropFirst() {
            let value = field.dropFirst()
            switch field.first {
            case "W": width = Int(value) ?? 0
            case "H": height = Int(value) ?? 0
            case "F":
                let parts = value.split(separator: ":").compactMap { Double($0) }
                if parts.count == 2, parts[0] > 0, parts[1] > 0 { rate = parts[0] / parts[1] }
            case "C":
                guard value.hasPrefix("420") else {
                    throw CommandFailure(.badInput, "\(path) is C\(value); only 8-bit 4:2:0 (C420…) streams")
                }
            default: break
            }
        }
        guard width > 0, height > 0, width % 2 == 0, height % 2 == 0 else {
            throw CommandFailure(.badInput, "\(path) has no even width and height in its header")
        }
        self.width = width
        self.height = height
        self.frameRate = rate
        self.frameBytes = width * height * 3 / 2
    }

    /// Reads the next frame into `buffer`; `false` at the end of the file.
    func readFrame(into buffer: inout PixelBuffer) throws -> Bool {
        guard let marker = try Self.readLine(self.handle) else { return false }
        guard marker.hasPrefix("FRAME") else { throw CommandFailure(.badInput, "a Y4M frame lacks its FRAME line") }
        guard let data = try self.handle.read(upToCount: self.frameBytes), data.count == self.frameBytes else {
            return false
        }
        let bytes = [UInt8](data)
        let lumaBytes = self.width * self.height
        let chromaBytes = lumaBytes / 4
        try buffer.copyPlane(0, from: Array(bytes[0..<lumaBytes]), bytesPerRow: self.width)
        try buffer.copyPlane(1, from: Array(bytes[lumaBytes..<(lumaBytes + chromaBytes)]), bytesPerRow: self.width / 2)
        try buffer.copyPlane(2, from: Array(bytes[(lumaBytes + chromaBytes)...]), bytesPerRow: self.width / 2)
        return true
    }

    /// One header or frame line (at most 1 KiB, without its newline); `nil` at the end.
    private static func readLine(_ handle: FileHandle) throws -> String? {
        var line = Data()
        while line.count < 1_024 {
            guard let byte = try handle.read(upToCount: 1), let value = byte.first else {
                return line.isEmpty ? nil : String(decoding: line, as: UTF8.self)
            }
            if value == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(value)
        }
        throw CommandFailure(.badInput, "a Y4M header line is longer than 1 KiB")
    }
}

/// A WAV file's PCM: 16-bit integer or 32-bit float, any rate and channel count.
struct WAVFile {
    let sampleRate: Int
    let channelCount: Int
    /// Interleaved samples as floats in −1…1.
    let samples: [Float]

    /// Reads all of `path`.
    init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure(.badInput, "cannot read \(path)")
        }
        let bytes = [UInt8](data)
        func word(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func long(_ at: Int) -> Int { word(at) | word(at + 2) << 16 }
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8)
        else {
            throw CommandFailure(.badInput, "\(path) is not a RIFF/WAVE file")
        }
        var format: (code: Int, channels: Int, rate: Int, bits: Int)?
        var samples: [Float]?
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = long(offset + 4)
            let body = offset + 8
            guard size >= 0, body + size <= bytes.count else { break }
            if bytes[offset..<(offset + 4)].elementsEqual("fmt ".utf8), size >= 16 {
                format = (word(body), word(body + 2), long(body + 4), word(body + 14))
            } else if bytes[offset..<(offset + 4)].elementsEqual("data".utf8), let format {
                switch (format.code, format.bits) {
                case (1, 16):
                    samples = stride(from: body, to: body + size - 1, by: 2).map {
                        Float(Int16(truncatingIfNeeded: word($0))) / 32_768
                    }
                case (3, 32):
                    samples = stride(from: body, to: body + size - 3, by: 4).map {
                        Float(bitPattern: UInt32(truncatingIfNeeded: long($0)))
                    }
                default:
                    throw CommandFailure(.badInput, "\(path): only 16-bit PCM and 32-bit float WAV stream")
                }
            }
            offset = body + size + (size & 1)
        }
        guard let format, let samples, format.channels > 0, format.rate > 0 else {
            throw CommandFailure(.badInput, "\(path) has no fmt and data chunks")
        }
        self.sampleRate = format.rate
        self.channelCount = format.channels
        self.samples = samples
    }
}
