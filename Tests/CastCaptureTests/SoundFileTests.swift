import CastCapture
import CastTestSupport
import Foundation
import Testing

/// ``SoundFile``: what `cast audio FILE` and an app's chime read. Each file is
/// made by ffmpeg from its 440 Hz sine and decoded by ffmpeg again; the
/// samples are checked for their pitch (zero crossings) and channels.
@Suite(
    .timeLimit(.minutes(3)),
    .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "needs ffmpeg"))
struct SoundFileTests {
    /// Every chunk of `file`, 10 ms at a time, as one array.
    static func readAll(_ file: SoundFile) throws -> [Float] {
        var samples: [Float] = []
        while let chunk = try file.nextChunk(frames: file.sampleRate / 100) { samples += chunk }
        return samples
    }

    /// The pitch of `channel` of interleaved `samples`: half its upward and downward zero crossings per second.
    static func frequency(_ samples: [Float], channels: Int, channel: Int = 0, rate: Int) -> Double {
        let mono = stride(from: channel, to: samples.count, by: channels).map { samples[$0] }
        let crossings = zip(mono, mono.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
        return Double(crossings) / 2 / (Double(mono.count) / Double(rate))
    }

    /// A mono FLAC stays mono (no 3 dB lost to an upmix), at 48 kHz, its 440 Hz intact, 2 s long.
    @Test func aMonoFileStaysMonoAt48kHz() async throws {
        let flac = try await TestFilm.make("tone.flac", seconds: 2, video: ["-vn"], audio: ["-c:a", "flac"])
        let file = try await SoundFile.open(flac)
        #expect(file.sampleRate == 48_000)
        #expect(file.channelCount == 1)
        #expect(!file.isLive)
        let samples = try Self.readAll(file)
        #expect(abs(samples.count - 96_000) < 2_000, "\(samples.count) samples")
        let pitch = Self.frequency(samples, channels: 1, rate: 48_000)
        #expect(abs(pitch - 440) < 5, "\(pitch) Hz")
        #expect((samples.max() ?? 0) > 0.1)
    }

    /// Six channels are mixed down to stereo, the tone in both.
    @Test func moreThanTwoChannelsAreMixedDownToStereo() async throws {
        let surround = try await TestFilm.make(
            "surround.mka", seconds: 1, video: ["-vn"], audio: ["-ac", "6", "-c:a", "pcm_s16le"])
        let file = try await SoundFile.open(surround)
        #expect(file.channelCount == 2)
        let samples = try Self.readAll(file)
        for channel in 0..<2 {
            let pitch = Self.frequency(samples, channels: 2, channel: channel, rate: 48_000)
            #expect(abs(pitch - 440) < 5, "channel \(channel): \(pitch) Hz")
        }
    }

    /// A WAV is read whole at its own rate, without ffmpeg.
    @Test func aWAVIsReadAtItsOwnRate() async throws {
        let wav = try await TestFilm.make(
            "tone.wav", seconds: 1, video: ["-vn"], audio: ["-ar", "22050", "-ac", "2", "-c:a", "pcm_s16le"])
        let file = try await SoundFile.open(wav)
        #expect(file.sampleRate == 22_050)
        #expect(file.channelCount == 2)
        let pitch = Self.frequency(try Self.readAll(file), channels: 2, rate: 22_050)
        #expect(abs(pitch - 440) < 5, "\(pitch) Hz")
    }

    /// Raw PCM from a pipe is live: read as it comes, in whole frames, until the writer closes it.
    @Test func rawPCMFromAPipeIsReadAsItComes() throws {
        let pipe = Pipe()
        let file = SoundFile(rawPCM: pipe.fileHandleForReading, sampleRate: 8_000, channelCount: 2)
        #expect(file.isLive)
        // Three whole frames and half of a fourth: the half waits for the rest, which never comes.
        let samples: [Int16] = [16_384, -16_384, 8_192, -8_192, 0, 32_767, 1]
        pipe.fileHandleForWriting.write(samples.withUnsafeBytes { Data($0) })
        try pipe.fileHandleForWriting.close()
        let chunk = try #require(try file.nextChunk(frames: 80))
        #expect(chunk == [0.5, -0.5, 0.25, -0.25, 0, Float(32_767) / 32_768])
        #expect(try file.nextChunk(frames: 80) == nil)
    }

    /// A film without sound, a missing file and one ffmpeg cannot read are each a typed
    /// error saying so, before anything would be sent.
    @Test func whatHoldsNoSoundIsATypedError() async throws {
        let silent = try await TestFilm.make("silent.mkv", seconds: 1, video: ["-c:v", "mpeg4"], audio: ["-an"])
        let noSound = await #expect(throws: CaptureError.self) { _ = try await SoundFile.open(silent) }
        #expect(noSound?.code == .unreadableSoundFile)
        #expect(noSound?.message.contains("has no sound") == true, "\(String(describing: noSound))")
        let missing = URL(fileURLWithPath: "/nonexistent/chime.ogg")
        let absent = await #expect(throws: CaptureError.self) { _ = try await SoundFile.open(missing) }
        #expect(absent?.code == .unreadableSoundFile)
        #expect(absent?.message == "cannot read /nonexistent/chime.ogg")
        let garbage = silent.deletingLastPathComponent().appendingPathComponent("garbage.mp3")
        try Data(repeating: 0x5A, count: 4_096).write(to: garbage)
        let unreadable = await #expect(throws: CaptureError.self) { _ = try await SoundFile.open(garbage) }
        #expect(unreadable?.code == .unreadableSoundFile)
    }
}
