import ArgumentParser
import CastCapture
import CastKit
import CastRemoteDisplay
import Foundation
import NIOConcurrencyHelpers

/// `cast audio`: sound to a speaker, a speaker group or a TV over
/// audio-only Cast Streaming (``AudioCastSession``) — hundreds of
/// milliseconds behind, not the media player's seconds.
struct AudioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audio",
        abstract:
            "Send sound to a speaker, speaker group or TV with Cast Streaming's low latency: a file, raw PCM on stdin, or this machine's sound."
    )

    @Argument(
        help:
            "A WAV file, any file ffmpeg decodes, or - for raw 16-bit little-endian PCM on stdin (see --rate, --channels)."
    )
    var input: String?
    @Flag(help: "Send this machine's sound (the default sink's monitor, through PulseAudio or PipeWire) until Ctrl-C.")
    var capture = false
    @Option(help: "With --capture: the sound server to record from (default: libpulse's choice).")
    var audioServer: String?
    @Option(help: "With --capture: the sound source to record (default: the default sink's monitor).")
    var audioSource: String?
    @Option(help: "With -: the PCM's sample rate, Hz.") var rate = 48_000
    @Option(help: "With -: the PCM's channels (1 or 2).") var channels = 2
    @Option(help: "Target playout delay, milliseconds.") var delay = 400
    @Option(help: "Opus bitrate, kbit/s.") var bitrate = 128
    @Option(help: "Seconds to send (default: the whole input; with --capture, until Ctrl-C).") var seconds: Double?
    @Flag(help: "Leave the receiver's app running when done (it is stopped by its session id otherwise).")
    var keepApp = false
    @OptionGroup var options: DeviceOptions

    func validate() throws {
        guard self.capture != (self.input != nil) else {
            throw ValidationError("give a file, - for stdin, or --capture")
        }
        guard (1...2).contains(self.channels) else { throw ValidationError("--channels must be 1 or 2") }
        guard (8_000...192_000).contains(self.rate) else { throw ValidationError("--rate must be 8000…192000") }
        guard (6...510).contains(self.bitrate) else { throw ValidationError("--bitrate must be 6…510 kbit/s") }
        guard (1...5_000).contains(self.delay) else { throw ValidationError("--delay must be 1…5000 ms") }
        guard (self.seconds ?? 1) > 0 else { throw ValidationError("--seconds must be positive") }
    }

    func run() async throws {
        try await self.reportingFailures {
            var file: SoundFile?
            if let input = self.input {
                file = try await SoundFile.open(path: input, rate: self.rate, channels: self.channels)
            }
            let recorder =
                self.capture
                ? try DesktopAudioCapture(
                    configuration: DesktopAudioConfiguration(server: self.audioServer, device: self.audioSource))
                : nil
            let interrupted = Interruption.install()
            let summary = try await ReceiverLink.with(self.options) { link in
                if let capabilities = link.capabilities, !capabilities.contains(.audioOut) {
                    throw CommandFailure(
                        .launchFailed, "the device has no sound output (capabilities: \(capabilities))")
                }
                let group = GroupMembers(link)
                defer { group.stop() }
                Output.progress("launching the audio mirroring app")
                let audio = try await AudioCastSession.start(
                    on: link.receiver,
                    audio: RemoteDisplayConfiguration.Audio(bitrate: self.bitrate * 1_000),
                    targetDelay: .milliseconds(self.delay), logger: link.logger)
                Output.progress(
                    "sending \(self.capture ? "this machine's sound" : self.input == "-" ? "stdin" : self.input ?? "") "
                        + "to \(audio.applicationID) (Opus \(self.bitrate) kbit/s, delay \(self.delay) ms); Ctrl-C stops"
                )
                let reconnection = SpeakerReconnection(
                    options: self.options, audio: audio, launcher: link.receiver,
                    transportID: audio.session.applicationTransportID)
                // Connections made after a loss; closed at the end (the first is `with`'s).
                var newLinks: [ReceiverLink] = []
                let stop = NIOLockedValueBox(false)
                let done = NIOLockedValueBox(false)
                var feeding: Task<Void, any Error>?
                if let recorder {
                    try recorder.start(streamingTo: audio.session)
                } else if let file {
                    let feeder = SoundFeeder(file: file, audio: audio)
                    feeding = Task {
                        defer { done.withLockedValue { $0 = true } }
                        try await feeder.run(until: { stop.withLockedValue { $0 } })
                    }
                }
                let start = ContinuousClock.now
                var lastLine = start
                while !interrupted.happened {
                    if let seconds = self.seconds, ContinuousClock.now - start >= .milliseconds(Int(seconds * 1_000)) {
                        break
                    }
                    if case .ended = audio.session.state { break }
                    if audio.session.state == .interrupted {
                        let link = try await reconnection.reconnect()
                        group.follow(link)
                        newLinks.append(link)
                    }
                    if recorder?.hasEnded == true { break }
                    if done.withLockedValue({ $0 }) { break }
                    try await Task.sleep(for: .milliseconds(100))
                    if ContinuousClock.now - lastLine >= .seconds(1) {
                        lastLine = ContinuousClock.now
                        Output.progress(AudioStatistics(audio).line)
                    }
                }
                stop.withLockedValue { $0 = true }
                recorder?.stop()
                let fed = await feeding?.result
                // What is queued plays out: the target delay, then the last acknowledgements.
                try await Task.sleep(for: .milliseconds(self.delay + 300))
                var summary = AudioStatistics(audio)
                summary.members = group.json
                if !self.keepApp { Output.progress("stopping \(audio.applicationID)") }
                await audio.end(stoppingApplication: !self.keepApp)
                for link in newLinks { await link.close() }
                if let failure = await recorder?.finished() { throw failure }
                try fed?.get()
                return summary
            }
            try Output.result(json: summary.json, text: summary.line, asJSON: self.options.json)
        }
    }
}

/// Feeds a ``SoundFile`` to the session in 10 ms chunks on a thread of its
/// own (reading a pipe blocks): a file at its real-time pace, stdin as it
/// comes, each chunk stamped with when it is due.
struct SoundFeeder: @unchecked Sendable {
    // @unchecked Sendable: the file is read only by the one thread `run` starts.
    let file: SoundFile
    let audio: AudioCastSession

    /// Feeds until the input ends or `stopped` says so.
    func run(until stopped: @escaping @Sendable () -> Bool) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let thread = Thread {
                continuation.resume(with: Result { try self.feed(until: stopped) })
            }
            thread.name = "cast.audio-input"
            thread.start()
        }
    }

    private func feed(until stopped: () -> Bool) throws {
        var input = try self.audio.makeAudioInput(
            sourceSampleRate: self.file.sampleRate, sourceChannelCount: self.file.channelCount)
        let framesPerChunk = self.file.sampleRate / 100
        var anchor = HostTime.now.advanced(by: .milliseconds(50))
        var index = 0
        while !stopped(), let chunk = try self.file.nextChunk(frames: framesPerChunk) {
            var pts = anchor.advanced(by: .milliseconds(10 * index))
            let wait = HostTime.now.duration(to: pts)
            if self.file.isLive, wait < .milliseconds(-50) {
                // A live source fell behind its schedule: stamp it now.
                anchor = HostTime.now.advanced(by: .zero - .milliseconds(10 * index))
                pts = anchor.advanced(by: .milliseconds(10 * index))
            } else if wait > .zero {
                Thread.sleep(forTimeInterval: wait / .seconds(1))
            }
            _ = try input.enqueue(interleaved: chunk, pts: pts)
            self.audio.audioWasQueued()
            index += 1
        }
    }
}
