import CastMediaServer
import CastRemoteDisplay
import Foundation

/// Where `cast audio` reads its sound from, as interleaved samples: a WAV
/// file (read whole), any other file through ffmpeg (decoded to 16-bit
/// PCM on its pipe), or raw 16-bit little-endian PCM on stdin.
final class SoundFile {
    /// Samples per second of what `nextChunk` gives.
    let sampleRate: Int
    /// Channels, interleaved.
    let channelCount: Int
    /// A live source (stdin): its chunks come when they come, so they are
    /// stamped when read, not on a schedule of their own.
    let isLive: Bool
    private var wav: WAVFile?
    private var wavPosition = 0
    private let pipe: FileHandle?
    private let decoder: Process?
    /// Bytes read past the last whole frame.
    private var pending = Data()

    /// Opens `path`, a file, or `-` for stdin carrying `rate` Hz,
    /// `channels`-channel PCM. A file other than WAV is probed with ffprobe
    /// first, so one without sound fails before anything is launched.
    static func open(path: String, rate: Int, channels: Int) async throws -> SoundFile {
        if path != "-", !path.lowercased().hasSuffix(".wav"), FileManager.default.isReadableFile(atPath: path) {
            let tools = MediaTools.installed()
            guard tools.ffmpeg != nil, tools.ffprobe != nil else {
                throw CommandFailure(
                    .badInput, "\(path) is not a WAV file, and ffmpeg, which would decode it, is not installed")
            }
            guard let sound = try await tools.probe(URL(fileURLWithPath: path)).audio else {
                throw CommandFailure(.badInput, "\(path) has no sound")
            }
            // Mono stays mono (ffmpeg's upmix would lower it by 3 dB); more than two channels are mixed down.
            return try SoundFile(path: path, rate: rate, channels: sound.channels == 1 ? 1 : 2)
        }
        return try SoundFile(path: path, rate: rate, channels: channels)
    }

    /// `rate` and `channels` describe stdin's PCM; for a file ffmpeg decodes,
    /// `channels` is how many it decodes to.
    private init(path: String, rate: Int, channels: Int) throws {
        if path == "-" {
            (self.sampleRate, self.channelCount, self.isLive) = (rate, channels, true)
            (self.pipe, self.decoder) = (FileHandle.standardInput, nil)
            return
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw CommandFailure(.badInput, "cannot read \(path)")
        }
        self.isLive = false
        if path.lowercased().hasSuffix(".wav") {
            let wav = try WAVFile(path: path)
            (self.sampleRate, self.channelCount, self.wav) = (wav.sampleRate, wav.channelCount, wav)
            (self.pipe, self.decoder) = (nil, nil)
            return
        }
        guard let ffmpeg = MediaTools.installed().ffmpeg else {
            throw CommandFailure(.badInput, "ffmpeg, which would decode \(path), is not installed")
        }
        let process = Process()
        process.executableURL = ffmpeg
        process.arguments = [
            "-v", "error", "-nostdin", "-i", path, "-vn", "-f", "s16le", "-ac", "\(channels)", "-ar", "48000", "-",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        (self.sampleRate, self.channelCount) = (48_000, channels)
        (self.pipe, self.decoder) = (output.fileHandleForReading, process)
    }

    deinit {
        if let decoder = self.decoder, decoder.isRunning { decoder.terminate() }
    }

    /// Up to `frames` frames (each `channelCount` samples) as floats, fewer at the end; nil after it.
    func nextChunk(frames: Int) throws -> [Float]? {
        if let wav = self.wav {
            let end = min(self.wavPosition + frames * self.channelCount, wav.samples.count)
            guard end > self.wavPosition else { return nil }
            defer { self.wavPosition = end }
            return Array(wav.samples[self.wavPosition..<end])
        }
        guard let pipe = self.pipe else { return nil }
        let frameBytes = self.channelCount * 2
        var bytes = self.pending
        while bytes.count < frames * frameBytes {
            guard let more = try pipe.read(upToCount: frames * frameBytes - bytes.count), !more.isEmpty else { break }
            bytes += more
        }
        let whole = bytes.count / frameBytes * frameBytes
        self.pending = bytes.subdata(in: whole..<bytes.count)
        if whole == 0 {
            if let decoder = self.decoder {
                decoder.waitUntilExit()
                if decoder.terminationStatus != 0 {
                    throw CommandFailure(
                        .badInput, "ffmpeg could not decode the file (status \(decoder.terminationStatus))")
                }
            }
            return nil
        }
        return bytes.withUnsafeBytes { raw in
            (0..<whole / 2).map {
                Float(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self))) / 32_768
            }
        }
    }
}
