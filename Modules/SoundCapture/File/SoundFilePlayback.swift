public import CastStreaming
import Foundation
import NIOConcurrencyHelpers

/// A ``SoundFile`` fed to an `AudioCastSession` in 10 ms chunks on a thread
/// of its own (reading a pipe blocks): a file at its real-time pace, a live
/// pipe as it comes, each chunk stamped with when it is due, so the device
/// plays it the session's target delay later.
///
/// ```swift
/// let audio = try await AudioCastSession.start(through: link)
/// let playback = SoundFilePlayback.start(try await SoundFile.open(chime), into: audio)
/// try await playback.finished()
/// await audio.end()
/// ```
public final class SoundFilePlayback: Sendable {
    private let task: Task<Void, any Error>
    private let stopping: NIOLockedValueBox<Bool>
    private let done: NIOLockedValueBox<Bool>

    private init(task: Task<Void, any Error>, stopping: NIOLockedValueBox<Bool>, done: NIOLockedValueBox<Bool>) {
        (self.task, self.stopping, self.done) = (task, stopping, done)
    }

    /// Starts feeding `file` to `audio`, from 50 ms from now.
    public static func start(_ file: SoundFile, into audio: AudioCastSession) -> SoundFilePlayback {
        let stopping = NIOLockedValueBox(false)
        let done = NIOLockedValueBox(false)
        let task = Task {
            defer { done.withLockedValue { $0 = true } }
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let thread = Thread {
                    continuation.resume(
                        with: Result { try Self.feed(file, to: audio, until: { stopping.withLockedValue { $0 } }) })
                }
                thread.name = "cast.sound-file"
                thread.start()
            }
        }
        return SoundFilePlayback(task: task, stopping: stopping, done: done)
    }

    /// Whether the file ended (or failed, or ``stop()`` was called).
    public var hasEnded: Bool { self.done.withLockedValue { $0 } }

    /// Waits until the whole file was fed (what is queued then plays out on
    /// the device over the target delay).
    ///
    /// - Throws: the ``SoundFile``'s failure, or the session's when it
    ///   refuses the sound (`CastRemoteDisplayError`).
    public func finished() async throws {
        try await self.task.value
    }

    /// Stops feeding after the chunk in hand; how it went, as ``finished()``.
    public func stop() async throws {
        self.stopping.withLockedValue { $0 = true }
        try await self.task.value
    }

    /// Feeds `file` until it ends or `stopped` says so, on the calling thread.
    private static func feed(_ file: SoundFile, to audio: AudioCastSession, until stopped: () -> Bool) throws {
        var input = try audio.makeAudioInput(sourceSampleRate: file.sampleRate, sourceChannelCount: file.channelCount)
        let framesPerChunk = file.sampleRate / 100
        var anchor = HostTime.now.advanced(by: .milliseconds(50))
        var index = 0
        while !stopped(), let chunk = try file.nextChunk(frames: framesPerChunk) {
            var pts = anchor.advanced(by: .milliseconds(10 * index))
            let wait = HostTime.now.duration(to: pts)
            if file.isLive, wait < .milliseconds(-50) {
                // A live source fell behind its schedule: stamp it now.
                anchor = HostTime.now.advanced(by: .zero - .milliseconds(10 * index))
                pts = anchor.advanced(by: .milliseconds(10 * index))
            } else if wait > .zero {
                Thread.sleep(forTimeInterval: wait / .seconds(1))
            }
            _ = try input.enqueue(interleaved: chunk, pts: pts)
            audio.audioWasQueued()
            index += 1
        }
    }
}
