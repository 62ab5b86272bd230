import CastCapture
import CastKit
import CastRemoteDisplay
import Dispatch
import Foundation
import NIOConcurrencyHelpers

/// `cast screen --capture`: this machine's display (and sound) to the
/// receiver until Ctrl-C, `--seconds`, or the source or the receiver app
/// goes away, with a statistics line every second.
struct DesktopMirroring {
    let options: CaptureOptions
    let limit: RemoteDisplayConfiguration.Resolution
    let frameRate: Int
    let bitrate: Int
    let codecs: [VideoCodec]
    let delay: Duration
    let seconds: Double?
    /// Whether the mirroring app keeps running afterwards (`--keep-app`).
    let keepsApplication: Bool

    /// Streams; the session's last statistics.
    func run(device: DeviceOptions) async throws -> RemoteDisplayStatistics {
        let source = try self.options.source()
        if source == .portal { Output.progress("asking the desktop which screen or window to share") }
        let capture = try await ScreenCapture.open(
            configuration: ScreenCaptureConfiguration(
                display: self.options.display, source: source, showsCursor: !self.options.hideCursor,
                frameRate: self.frameRate, restoreToken: self.options.storedRestoreToken()))
        if let token = capture.restoreToken {
            do {
                try CaptureOptions.store(restoreToken: token)
            } catch {
                Output.progress("cannot keep the portal's answer for next time: \(error)")
            }
        }
        let sound =
            self.options.captureAudio
            ? try DesktopAudioCapture(
                configuration: DesktopAudioConfiguration(
                    server: self.options.audioServer, device: self.options.audioSource))
            : nil
        let resolution = capture.sourceSize.scaledToFit(within: self.limit)
        let configuration = RemoteDisplayConfiguration(
            resolutions: [resolution], maximumFrameRate: self.frameRate, maximumVideoBitrate: self.bitrate,
            videoCodecs: self.codecs, audio: sound == nil ? nil : RemoteDisplayConfiguration.Audio(),
            targetDelay: self.delay)
        let interrupted = Interruption.install()
        return try await ReceiverLink.with(device) { link in
            let (channel, session) = try await link.beginRemoteDisplay(configuration)
            Output.progress(
                "mirroring \(capture.configuration.source) (\(capture.sourceSize.width)x\(capture.sourceSize.height)) "
                    + "as \(session.configuration.resolution.width)x\(session.configuration.resolution.height) "
                    + "\(session.configuration.videoCodec) at up to \(self.frameRate) fps"
                    + "\(sound == nil ? "" : " with sound"); Ctrl-C stops")
            try capture.start(streamingTo: session)
            try sound?.start(streamingTo: session)
            let failure = try await self.watch(capture, session, link: link, interrupted: interrupted)
            capture.stop()
            sound?.stop()
            let soundFailure = await sound?.finished()
            _ = await capture.finished()
            // The device went away (its connection closed): nothing to end there, and it is a failure.
            if case .disconnected(let reason) = await link.connection.currentState {
                throw CommandFailure(
                    .connectionFailed,
                    "lost the connection to \(link.host) while mirroring (\(reason.summary)): the device went away or "
                        + "was turned off")
            }
            try await Task.sleep(for: .milliseconds(300))  // the last acknowledgements and statistics
            let final = session.currentStatistics
            if !self.keepsApplication { Output.progress("stopping the mirroring app") }
            await channel.endSession(stoppingApplication: !self.keepsApplication)
            if let failure = failure ?? soundFailure { throw failure }
            return final
        }
    }

    /// Prints statistics every second until the end — Ctrl-C, `--seconds`,
    /// the session or the capture ending, or the device's connection
    /// closing; the capture's error, if that ended it.
    private func watch(
        _ capture: ScreenCapture, _ session: RemoteDisplaySession, link: ReceiverLink, interrupted: Interruption
    ) async throws -> CaptureError? {
        let start = ContinuousClock.now
        var last = (time: start, frames: 0)
        while !interrupted.happened, !capture.hasEnded {
            if let seconds = self.seconds, ContinuousClock.now - start >= .milliseconds(Int(seconds * 1_000)) { break }
            if case .ended = session.state { break }
            if case .disconnected = await link.connection.currentState { break }
            try await Task.sleep(for: .milliseconds(100))
            let now = ContinuousClock.now
            guard now - last.time >= .seconds(1) else { continue }
            let captured = capture.statistics.framesCaptured
            let rate = Double(captured - last.frames) / ((now - last.time) / .seconds(1))
            last = (now, captured)
            Output.progress(
                String(format: "capture %.0f fps, ", rate) + ScreenStatistics(session.currentStatistics).line)
        }
        return capture.hasEnded ? await capture.finished() : nil
    }
}
