import Foundation

/// A WAV file's PCM, whole: 16-bit integer or 32-bit float, any rate and
/// channel count — hand it to an ``AudioInput`` to resample to 48 kHz.
public struct WAVFile: Sendable {
    /// Frames per second.
    public let sampleRate: Int
    /// Channels.
    public let channelCount: Int
    /// Interleaved samples as floats in −1…1.
    public let samples: [Float]

    /// Reads all of `path`.
    ///
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/invalidFile``.
    public init(path: String) throws(CastRemoteDisplayError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CastRemoteDisplayError(.invalidFile, "cannot read \(path)")
        }
        do {
            try self.init(bytes: [UInt8](data))
        } catch {
            throw CastRemoteDisplayError(.invalidFile, "\(path) is not a WAV file this reads", cause: error)
        }
    }

    /// Reads a whole RIFF/WAVE file from memory: its `fmt ` and `data` chunks.
    ///
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/invalidFile`` for anything but
    ///   16-bit PCM or 32-bit float with a channel count and rate.
    public init(bytes: [UInt8]) throws(CastRemoteDisplayError) {
        func word(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func long(_ at: Int) -> Int { word(at) | word(at + 2) << 16 }
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8)
        else {
            throw CastRemoteDisplayError(.invalidFile, "not a RIFF/WAVE file")
        }
        var format: (code: Int, channels: Int, rate: Int, bits: Int)?
        var samples: [Float]?
        var offset = 12
        while offset + 8 <= bytes.count {
            let size = long(offset + 4)
            let body = offset + 8
            guard size >= 0, size <= bytes.count - body else { break }
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
                    throw CastRemoteDisplayError(.invalidFile, "only 16-bit PCM and 32-bit float WAV stream")
                }
            }
            offset = body + size + (size & 1)
        }
        guard let format, let samples, format.channels > 0, format.rate > 0 else {
            throw CastRemoteDisplayError(.invalidFile, "no fmt and data chunks")
        }
        self.sampleRate = format.rate
        self.channelCount = format.channels
        self.samples = samples
    }
}
