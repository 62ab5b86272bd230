import ArgumentParser
import CastEmulator
import CastKit
import CastRemoteDisplay
import Foundation

/// `cast demo`: the whole SDK against an in-process receiver emulator on loopback.
///
/// Starts the emulator on 127.0.0.1, connects over TLS, launches the Default
/// Media Receiver, loads and controls a video, then launches the mirroring
/// app and streams 5 s of Remote Display test pattern and tone, and prints
/// what the emulator measured. Nothing leaves the machine.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the SDK end to end against a receiver emulator on loopback (nothing leaves the machine).")

    @Option(help: "Seconds of Remote Display to stream.") var seconds: Double = 5
    @Flag(help: "Print the summary as JSON on stdout.") var json = false
    @Flag(name: .shortAndLong, help: "Log what the SDK does (to stderr).") var verbose = false

    func run() async throws {
        try await self.reportingFailures {
            let quiet = CastLogger(filter: CastLogFilter(minimumLevel: .none))
            let emulator = try CastEmulator(
                configuration: CastEmulatorConfiguration(name: "Demo Emulator"), logger: quiet)
            try await emulator.start()
            Output.progress("1. receiver emulator listening on 127.0.0.1:\(emulator.port), advertising on loopback")
            let responder = emulator.makeResponder(interfaces: .loopbackOnly, addressFamilies: .ipv4)
            // Both are stopped however the demo ends.
            let summary: Result<DemoSummary, any Error>
            do {
                try await responder.start()
                var options = try DeviceOptions.parse(["--device", try await Self.find(emulator)])
                options.verbose = self.verbose
                summary = .success(
                    try await ReceiverLink.with(options) { link in
                        try await Self.media(on: link)
                        return try await self.screen(on: link, emulator: emulator)
                    })
            } catch {
                summary = .failure(error)
            }
            await responder.stop()
            await emulator.stop()
            let done = try summary.get()
            try Output.result(json: done.json, text: done.text, asJSON: self.json)
        }
    }

    /// Finds the emulator with mDNS on loopback (nothing leaves the machine);
    /// its address, or the one it listens on when loopback has no multicast.
    private static func find(_ emulator: CastEmulator) async throws -> String {
        let id = emulator.advertisement.id
        let found = try await DiscoveryManager.firstDevice(
            configuration: DiscoveryConfiguration(interfaces: .loopbackOnly, addressFamilies: .ipv4),
            within: .seconds(5), logger: CastLogger(filter: CastLogFilter(minimumLevel: .none))
        ) { $0.id == id }
        guard let found, let address = found.addresses.first else {
            Output.progress("   loopback has no multicast here; using the emulator's address")
            return "127.0.0.1:\(emulator.port)"
        }
        Output.progress("   discovery found \(found)")
        return "\(address):\(found.port)"
    }

    /// Steps 2–4: launch the Default Media Receiver, load, pause, seek, resume, stop.
    private static func media(on link: ReceiverLink) async throws {
        let status = try await link.receiver.requestStatus()
        Output.progress(
            "2. connected over TLS; receiver status: \(status.text.replacingOccurrences(of: "\n", with: ", "))")
        let media = RemoteMediaClient()
        let application = try await link.application(CastApplicationID.defaultMediaReceiver, attaching: [media])
        Output.progress("3. launched \(application.displayName), session \(application.sessionID ?? "-")")
        var metadata = MediaMetadata(type: .movie)
        metadata.setString("Big Buck Bunny", forKey: .title)
        let loaded = try await media.load(
            MediaLoadRequestData(
                mediaInformation: MediaInformation(
                    contentID: "https://media.example/bbb.mp4", contentType: "video/mp4", metadata: metadata,
                    duration: 596)))
        Output.progress("4. media: loaded → \(loaded?.text ?? "-")")
        let paused = try await media.pause()
        Output.progress("   pause → \(paused?.text ?? "-")")
        let seeked = try await media.seek(MediaSeekOptions(interval: 120))
        Output.progress("   seek 120 s → \(seeked?.text ?? "-")")
        let resumed = try await media.play()
        Output.progress("   resume → \(resumed?.text ?? "-")")
        let stopped = try await media.stop()
        Output.progress("   stop → \(stopped?.text ?? "-")")
        media.detach()
        if let sessionID = application.sessionID { _ = try await link.receiver.stop(sessionID: sessionID) }
    }

    /// Steps 5–6: launch mirroring, stream the test signal, and read the emulator's report.
    private func screen(on link: ReceiverLink, emulator: CastEmulator) async throws -> DemoSummary {
        let signal = try TestSignal(
            width: 1_280, height: 720, frameRate: 30, start: HostTime.now.advanced(by: .seconds(1)))
        emulator.streaming.videoReference = { signal.luma(at: $0) }
        let (channel, session) = try await link.beginRemoteDisplay(RemoteDisplayConfiguration())
        Output.progress("5. launched mirroring; offered VP9/VP8 720p30 + Opus stereo")
        Output.progress("   answered: streaming \(self.seconds) s of test pattern and 440 Hz tone")
        let handed = try await signal.stream(seconds: self.seconds, to: session) { index in
            guard index % 30 == 29 else { return }
            let statistics = session.currentStatistics
            Output.progress(
                "   \(index + 1) frames, \(statistics.videoBitrate / 1_000) kbit/s, RTT "
                    + "\(statistics.roundTripTime.map { "\(Int($0 / .milliseconds(1))) ms" } ?? "-"), encode "
                    + String(format: "%.1f ms", statistics.averageEncodeTime / .milliseconds(1)))
        }
        // The last frames arrive, are acknowledged, and the emulator decodes them.
        await session.playOut()
        let deadline = HostTime.now.advanced(by: .seconds(2))
        let audioSent = { session.currentStatistics.audio?.framesSent ?? 0 }
        while (emulator.streamingReport?.video?.framesDecoded ?? 0) < handed
            || (emulator.streamingReport?.audio?.framesDecoded ?? 0) < audioSent(),
            HostTime.now < deadline
        {
            try await Task.sleep(for: .milliseconds(20))
        }
        let report = emulator.streamingReport
        await channel.endSession(stoppingApplication: true)
        Output.progress("6. stopped the session and the mirroring app; the emulator measured:")
        return DemoSummary(handed: handed, report: report)
    }
}

/// What `cast demo` prints at the end: the frames sent, and what the emulator measured.
struct DemoSummary {
    let handed: Int
    let report: StreamingReport?

    var text: String { "video frames sent: \(self.handed)\n" + (self.report.map { "\($0)" } ?? "no stream report") }

    var json: JSONValue { ["videoFramesSent": .integer(self.handed), "measured": self.report?.json ?? .null] }
}
