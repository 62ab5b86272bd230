import CastStreaming
public import Foundation
import NIOConcurrencyHelpers

/// Sound from a file for an audio session, as interleaved `Float` samples:
/// a WAV file (read whole), any other file through ffmpeg (decoded on its
/// pipe), or raw 16-bit little-endian PCM from a pipe such as standard input.
///
/// Read it with ``nextChunk(frames:)`` from one thread, or hand it to
/// ``SoundFilePlayback`` to have it fed to an `AudioCastSession` at its own pace.
//
// @unchecked Sendable: the read position, the bytes read past the last whole
// frame and the decoder's pipe change only in `nextChunk`, which its owner
// calls from one thread at a time (SoundFilePlayback's feeding thread).
public final class SoundFile: @unchecked Sendable {
    /// Samples per second of what ``nextChunk(frames:)`` gives.
    public let sampleRate: Int
    /// Channels, interleaved.
    public let channelCount: Int
    /// A live source (a pipe of raw PCM): its chunks come when they come, so
    /// they are stamped when read, not on a schedule of their own.
    public let isLive: Bool
    private var wav: WAVFile?
    private var wavPosition = 0
    private let pipe: FileHandle?
    private let decoder: Process?
    /// Bytes read past the last whole frame.
    private var pending = Data()

    /// Opens `file`: a WAV file is read whole; any other file is decoded by
    /// ffmpeg (found on `PATH`) to 48 kHz, mono kept mono and more than two
    /// channels mixed down to stereo. A file without sound fails here,
    /// before anything is sent.
    ///
    /// - Throws: ``CaptureError/Code-swift.struct/unreadableSoundFile`` when
    ///   the file cannot be read or decoded, holds no sound, or is not WAV
    ///   and ffmpeg is not installed.
    public static func open(_ file: URL) async throws(CaptureError) -> SoundFile {
        guard FileManager.default.isReadableFile(atPath: file.path) else {
            throw CaptureError(.unreadableSoundFile, "cannot read \(file.path)")
        }
        if file.pathExtension.lowercased() == "wav" {
            do {
                return SoundFile(wav: try WAVFile(path: file.path))
            } catch {
                throw CaptureError(.unreadableSoundFile, error.message, cause: error)
            }
        }
        let decoder = try SoundDecoder(file: file)
        // Read on a thread of its own (the pipe blocks) and handed over under a lock, which
        // ThreadSanitizer sees order the thread's reads of the pipe before the caller's (as
        // ScreenCapture.open does).
        let header = NIOLockedValueBox(Result<(sampleRate: Int, channelCount: Int), CaptureError>?.none)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                let read = decoder.readHeader()
                header.withLockedValue { $0 = read }
                done.resume()
            }
        }
        guard let format = header.withLockedValue({ $0 }) else {
            throw CaptureError(.unreadableSoundFile, "\(file.path): ffmpeg's answer was lost")
        }
        return try SoundFile(decoder: decoder, format: format.get())
    }

    /// Raw 16-bit little-endian PCM read from `handle` (standard input, a
    /// pipe) as it comes: `sampleRate` Hz, `channelCount` channels interleaved.
    public init(rawPCM handle: FileHandle, sampleRate: Int, channelCount: Int) {
        (self.sampleRate, self.channelCount, self.isLive) = (sampleRate, channelCount, true)
        (self.pipe, self.decoder) = (handle, nil)
    }

    private init(wav: WAVFile) {
        (self.sampleRate, self.channelCount, self.isLive, self.wav) = (wav.sampleRate, wav.channelCount, false, wav)
        (self.pipe, self.decoder) = (nil, nil)
    }

    private init(decoder: SoundDecoder, format: (sampleRate: Int, channelCount: Int)) {
        (self.sampleRate, self.channelCount, self.isLive) = (format.sampleRate, format.channelCount, false)
        (self.pipe, self.decoder) = (decoder.output, decoder.process)
    }

    deinit {
        if let decoder = self.decoder, decoder.isRunning { decoder.terminate() }
    }

    /// Up to `frames` frames (each ``channelCount`` samples), fewer at the
    /// end; `nil` after it. Blocks while a pipe has nothing yet.
    ///
    /// - Throws: ``CaptureError/Code-swift.struct/unreadableSoundFile`` when
    ///   ffmpeg fails partway, or the pipe cannot be read.
    public func nextChunk(frames: Int) throws(CaptureError) -> [Float]? {
        if let wav = self.wav {
            let end = min(self.wavPosition + frames * self.channelCount, wav.samples.count)
            guard end > self.wavPosition else { return nil }
            defer { self.wavPosition = end }
            return Array(wav.samples[self.wavPosition..<end])
        }
        guard let pipe = self.pipe else { return nil }
        let frameBytes = self.channelCount * 2
        var bytes = self.pending
        do {
            while bytes.count < frames * frameBytes {
                guard let more = try pipe.read(upToCount: frames * frameBytes - bytes.count), !more.isEmpty else {
                    break
                }
                bytes += more
            }
        } catch {
            throw CaptureError(.unreadableSoundFile, "the sound cannot be read: \(error.localizedDescription)")
        }
        let whole = bytes.count / frameBytes * frameBytes
        self.pending = bytes.subdata(in: whole..<bytes.count)
        guard whole > 0 else {
            try self.decoderFinished()
            return nil
        }
        return bytes.withUnsafeBytes { raw in
            (0..<whole / 2).map {
                Float(Int16(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self))) / 32_768
            }
        }
    }

    /// At the end of a decoded file: waits for ffmpeg, and throws when it failed.
    private func decoderFinished() throws(CaptureError) {
        guard let decoder = self.decoder else { return }
        decoder.waitUntilExit()
        if decoder.terminationStatus != 0 {
            throw CaptureError(
                .unreadableSoundFile, "ffmpeg could not decode the file (status \(decoder.terminationStatus))")
        }
    }
}

/// ffmpeg decoding a file to 16-bit PCM in a WAV stream on its standard
/// output, whose header says how many channels it chose.
private struct SoundDecoder {
    let process: Process
    let output: FileHandle
    let file: URL

    init(file: URL) throws(CaptureError) {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin")
            .split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("ffmpeg") }
        guard let ffmpeg = path.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw CaptureError(
                .unreadableSoundFile,
                "\(file.path) is not a WAV file, and ffmpeg, which would decode it, is not installed")
        }
        let process = Process()
        process.executableURL = ffmpeg
        // Mono stays mono (ffmpeg's upmix would lower it by 3 dB); more channels are mixed down to stereo.
        process.arguments = [
            "-v", "error", "-nostdin", "-i", file.path, "-vn", "-map_metadata", "-1", "-af",
            "aformat=channel_layouts=mono|stereo", "-ar", "48000", "-c:a", "pcm_s16le", "-f", "wav", "-bitexact", "-",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw CaptureError(.unreadableSoundFile, "ffmpeg could not be started: \(error.localizedDescription)")
        }
        (self.process, self.output, self.file) = (process, output.fileHandleForReading, file)
    }

    /// Reads the WAV header up to its `data` chunk: the rate and channels
    /// ffmpeg decodes to. Blocks until ffmpeg writes it, or exits without
    /// (a file without sound, or one it cannot read).
    func readHeader() -> Result<(sampleRate: Int, channelCount: Int), CaptureError> {
        func read(_ count: Int) -> [UInt8]? {
            guard let data = try? self.output.read(upToCount: count), data.count == count else { return nil }
            return [UInt8](data)
        }
        func long(_ bytes: [UInt8], _ at: Int) -> Int {
            (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) }
        }
        guard let riff = read(12), riff[0..<4].elementsEqual("RIFF".utf8), riff[8..<12].elementsEqual("WAVE".utf8)
        else { return .failure(self.failure()) }
        var format: (sampleRate: Int, channelCount: Int)?
        // Chunks up to `data`, each bounded: ffmpeg writes `fmt ` (16 bytes) and nothing large before it.
        while let chunk = read(8), chunk[0..<4].elementsEqual("data".utf8) == false {
            let size = long(chunk, 4)
            guard size <= 4_096, let body = read(size + (size & 1)) else { return .failure(self.failure()) }
            if chunk[0..<4].elementsEqual("fmt ".utf8), size >= 16 {
                format = (long(body, 4), Int(body[2]) | Int(body[3]) << 8)
            }
        }
        guard let format, format.channelCount > 0, format.sampleRate > 0 else { return .failure(self.failure()) }
        return .success(format)
    }

    /// Why ffmpeg wrote no sound: it found none, or could not decode the file.
    private func failure() -> CaptureError {
        self.process.waitUntilExit()
        return self.process.terminationStatus == 0
            ? CaptureError(.unreadableSoundFile, "\(self.file.path) has no sound")
            : CaptureError(.unreadableSoundFile, "\(self.file.path) has no sound ffmpeg can decode")
    }
}
