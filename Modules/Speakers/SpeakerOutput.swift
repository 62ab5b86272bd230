import CastChannels
import CastCommon
import CastDiscovery
import CastLogging
import Logging

/// One device's sink and, while sound reaches it, its stream: the sink's
/// state drives ``StreamDemand``, whose changes start and stop the stream.
/// A stream that ends by itself, or fails to start, while sound still
/// reaches the sink is started again a second later (on the configured
/// clock).
///
/// While it streams, the sink's volume and mute and the device's follow
/// each other (``VolumeLink``; the device's win when the stream starts).
/// The sink's monitor records the sound after the sink's volume, so the
/// recording is given the inverse gain: the device receives what apps
/// play and applies the volume itself, once.
actor SpeakerOutput {
    /// Sets the sink's volume and mute.
    struct SinkControl: Sendable {
        let setVolume: @Sendable (Double) throws(SpeakersError) -> Void
        let setMuted: @Sendable (Bool) throws(SpeakersError) -> Void
    }

    let device: CastDevice
    let sinkName: String
    let module: UInt32
    let demand: StreamDemand
    private let configuration: CastSpeakersConfiguration
    private let events: EventBroadcaster<CastSpeakersEvent>
    private let logger: CastLogger
    private let sinkControl: SinkControl
    private let log: Logger
    private var stream: SpeakerStream?
    private var watcher: Task<Void, Never>?
    private var volumeWatcher: Task<Void, Never>?
    private var retry: Task<Void, Never>?
    private var volume = VolumeLink()
    private var mute = VolumeLink()
    private var lastSink: SoundServerSink?
    private nonisolated let sinkReports: AsyncStream<SoundServerSink>
    private nonisolated let sinkReporter: AsyncStream<SoundServerSink>.Continuation

    /// How long after a stream ended or failed it is tried again.
    static let retryDelay = Duration.seconds(1)

    init(
        device: CastDevice, sinkName: String, module: UInt32, configuration: CastSpeakersConfiguration,
        events: EventBroadcaster<CastSpeakersEvent>, logger: CastLogger, sinkControl: SinkControl
    ) {
        self.device = device
        self.sinkName = sinkName
        self.module = module
        self.configuration = configuration
        self.demand = StreamDemand(gracePeriod: configuration.gracePeriod, clock: configuration.clock)
        self.events = events
        self.logger = logger
        self.log = logger.makeLogger(subsystem: "Speakers")
        self.sinkControl = sinkControl
        (self.sinkReports, self.sinkReporter) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    /// The server reported the sink: its state, volume and mute.
    nonisolated func sinkChanged(_ sink: SoundServerSink) {
        self.demand.update(playing: sink.isPlaying)
        self.sinkReporter.yield(sink)
    }

    /// Follows the demand and the sink's reports until the demand finishes, then stops any stream.
    func run() async {
        let reports = Task {
            for await sink in self.sinkReports { await self.sinkReported(sink) }
        }
        for await wanted in self.demand.changes {
            if wanted {
                await self.start()
            } else {
                await self.stop()
                self.events.yield(.streamStopped(device: self.device.friendlyName))
            }
        }
        self.sinkReporter.finish()
        await reports.value
        await self.stop()
    }

    private func sinkReported(_ sink: SoundServerSink) async {
        self.lastSink = sink
        guard let stream = self.stream else { return }
        stream.capture.gain = Self.gain(undoing: sink)
        await self.apply(
            volume: self.volume.sinkReported(sink.volume), mute: self.mute.sinkReported(sink.isMuted ? 1 : 0), stream)
    }

    private func deviceReported(_ volume: ReceiverVolume, _ stream: SpeakerStream) async {
        guard self.stream === stream else { return }
        let fixed = volume.controlType == .fixed
        if fixed, !self.volume.isFixed {
            self.log.notice(
                "\(self.device.friendlyName) has a fixed volume: its sink stays at 100 % and only the mute follows")
        }
        self.volume.isFixed = fixed
        await self.apply(
            volume: volume.level.map { self.volume.deviceReported($0) } ?? [],
            mute: volume.isMuted.map { self.mute.deviceReported($0 ? 1 : 0) } ?? [], stream)
    }

    private func apply(volume: [VolumeLink.Step], mute: [VolumeLink.Step], _ stream: SpeakerStream) async {
        do {
            for step in volume {
                switch step {
                case .setSink(let level): try self.sinkControl.setVolume(level)
                case .setDevice(let level): try await stream.receiver.setVolume(level)
                }
            }
            for step in mute {
                switch step {
                case .setSink(let muted): try self.sinkControl.setMuted(muted >= 0.5)
                case .setDevice(let muted): try await stream.receiver.setMuted(muted >= 0.5)
                }
            }
        } catch {
            self.log.warning("the volume of \(self.device.friendlyName) could not follow: \(error)")
        }
    }

    /// The recording's gain that undoes the sink's volume (its monitor records after it).
    static func gain(undoing sink: SoundServerSink) -> Float {
        // Below −80 dB the sound is as good as silent: sent as silence, not amplified noise.
        sink.amplitude > 0.000_1 ? Float(1 / sink.amplitude) : 0
    }

    /// Whether a stream runs now.
    var isStreaming: Bool { self.stream != nil }

    private func start() async {
        guard self.stream == nil, self.demand.isWanted else { return }
        self.retry?.cancel()
        self.retry = nil
        do {
            let stream = try await SpeakerStream.start(
                to: self.device, recording: "\(self.sinkName).monitor", configuration: self.configuration,
                logger: self.logger)
            guard self.demand.isWanted, self.stream == nil else {
                await stream.stop()
                return
            }
            self.stream = stream
            self.volume = VolumeLink()
            self.mute = VolumeLink()
            self.events.yield(
                .streamStarted(device: self.device.friendlyName, application: stream.audio.applicationID))
            self.watcher = Task { [weak self] in
                for await state in stream.audio.session.stateUpdates() where state != .active { break }
                await self?.streamEnded(stream)
            }
            let deviceEvents = stream.receiver.events()
            self.volumeWatcher = Task { [weak self] in
                for await case .volumeChanged(let volume) in deviceEvents {
                    await self?.deviceReported(volume, stream)
                }
            }
            // The sink as last reported, then the device: the device's volume wins at the start.
            if let sink = self.lastSink { await self.sinkReported(sink) }
            if let volume = stream.receiver.status?.volume { await self.deviceReported(volume, stream) }
        } catch {
            self.events.yield(.streamFailed(device: self.device.friendlyName, reason: "\(error)"))
            self.scheduleRetry()
        }
    }

    private func streamEnded(_ ended: SpeakerStream) async {
        guard self.stream === ended else { return }
        let reason = ended.endReason ?? "the session ended"
        self.stream = nil
        self.watcher = nil
        self.volumeWatcher?.cancel()
        self.volumeWatcher = nil
        await ended.stop()
        self.events.yield(.streamEnded(device: self.device.friendlyName, reason: reason))
        self.scheduleRetry()
    }

    private func scheduleRetry() {
        guard self.demand.isWanted, self.retry == nil else { return }
        self.retry = Task { [clock = self.configuration.clock] in
            do {
                try await clock.sleep(for: Self.retryDelay)
            } catch {
                return
            }
            await self.retried()
        }
    }

    private func retried() async {
        self.retry = nil
        await self.start()
    }

    private func stop() async {
        self.retry?.cancel()
        self.retry = nil
        self.watcher?.cancel()
        self.watcher = nil
        self.volumeWatcher?.cancel()
        self.volumeWatcher = nil
        guard let stream = self.stream else { return }
        self.stream = nil
        await stream.stop()
    }
}
