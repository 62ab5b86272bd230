import CastCapture
import CastKit
import CastRemoteDisplay
import Foundation

/// `cast screen --capture`: the SDK's ``DesktopMirror`` until Ctrl-C,
/// `--seconds`, or the source or the receiver app goes away, with a
/// statistics line every second.
struct DesktopMirroring {
    let options: CaptureOptions
    let limit: RemoteDisplayConfiguration.Resolution
    let frameRate: Int
    let bitrate: Int
    let codecs: [VideoCodec]
    let latency: RemoteDisplayConfiguration.Latency
    let seconds: Double?
    /// Whether the mirroring app keeps running afterwards (`--keep-app`).
    let keepsApplication: Bool
    /// Whether the picture goes alone (`--no-audio`).
    let withoutSound: Bool

    /// Streams; the session's last statistics.
    func run(device: DeviceOptions) async throws -> RemoteDisplayStatistics {
        let configuration = DesktopMirror.Configuration(
            capture: ScreenCaptureConfiguration(
                display: self.options.display, source: try self.options.source(),
                showsCursor: !self.options.hideCursor, frameRate: self.frameRate,
                restoreToken: self.options.storedRestoreToken()),
            sound: self.withoutSound
                ? nil : DesktopAudioConfiguration(server: self.options.audioServer, source: self.options.audioSource),
            requiresSound: self.options.captureAudio,
            maximumResolution: self.limit, maximumVideoBitrate: self.bitrate, videoCodecs: self.codecs,
            latency: self.latency)
        let interrupted = Interruption.install()
        return try await ReceiverLink.with(device) { link in
            if configuration.capture.source == .portal {
                Output.progress("asking the desktop which screen or window to share")
            } else if case .virtualMonitor(let size) = configuration.capture.source {
                Output.progress("adding a \(size.width)x\(size.height) screen to the desktop for the TV")
            }
            Output.progress("launching the mirroring app")
            let mirror = try await DesktopMirror.start(on: link.link, configuration: configuration, logger: link.logger)
            do {  // The portal's answer, for the next run.
                try PortalGrant.standard(application: "cast").keep(mirror.capture.restoreToken)
            } catch {
                Output.progress("cannot keep the portal's answer for next time: \(error)")
            }
            if let unavailable = mirror.soundUnavailable {
                Output.progress("no sound: \(unavailable.message); mirroring the picture alone (--no-audio says so)")
            }
            Output.progress("mirroring \(mirror); Ctrl-C stops")
            let reason = try await self.watch(mirror, interrupted: interrupted)
            if case .connectionLost(let lost) = reason {
                _ = await mirror.stop(stoppingApplication: false)
                throw CommandFailure.connectionLost(to: link.host, lost.summary)
            }
            if !self.keepsApplication { Output.progress("stopping the mirroring app") }
            let outcome = await mirror.stop(stoppingApplication: !self.keepsApplication)
            if let failure = outcome.failure { throw failure }
            return outcome.statistics
        }
    }

    /// Prints statistics every second until Ctrl-C, `--seconds`, or the
    /// mirror ending by itself; why it ended by itself, if it did.
    private func watch(_ mirror: DesktopMirror, interrupted: Interruption) async throws -> DesktopMirror.EndReason? {
        let start = ContinuousClock.now
        var last = (time: start, frames: 0)
        while !interrupted.happened {
            if let seconds = self.seconds, ContinuousClock.now - start >= .milliseconds(Int(seconds * 1_000)) { break }
            if let reason = await mirror.endReason { return reason }
            try await Task.sleep(for: .milliseconds(100))
            let now = ContinuousClock.now
            guard now - last.time >= .seconds(1) else { continue }
            let captured = mirror.capture.statistics.framesCaptured
            let rate = Double(captured - last.frames) / ((now - last.time) / .seconds(1))
            last = (now, captured)
            Output.progress(
                String(format: "capture %.0f fps, ", rate) + "\(mirror.session.currentStatistics)")
        }
        return nil
    }
}
