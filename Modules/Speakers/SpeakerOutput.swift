import CastChannels
import CastCommon
import CastDiscovery
import CastLogging
import CastSoundCapture
import Logging

/// One sink and, while sound reaches it, its streams: to its device, or —
/// for a group's sink — to each member present. The sink's state drives
/// ``StreamDemand``, whose changes start and stop them. One recording of
/// the sink's monitor feeds every member's session with the same capture
/// times, so members given the same target delay play each sample at the
/// same moment; a member that fails, ends by itself or goes away is left
/// out while the others play on, and is tried again a second later (on the
/// configured clock) while sound still reaches the sink.
///
/// A device's own sink follows its volume and mute both ways
/// (``VolumeLink``; the device's win when the stream starts, or when the
/// control connection kept while no stream runs is made). The monitor
/// records after the sink's volume, so that recording gets the inverse
/// gain: the device receives what apps play and applies the volume itself,
/// once. A group's sink has no device volume to follow: its volume is the
/// group's, applied in the sound every member receives.
actor SpeakerOutput {
    /// Sets the sink's volume and mute.
    struct SinkControl: Sendable {
        let setVolume: @Sendable (Double) throws(SpeakersError) -> Void
        let setMuted: @Sendable (Bool) throws(SpeakersError) -> Void
    }

    /// What the events call the sink: the device's name, or the group's.
    let label: String
    let sinkName: String
    let sink: SpeakerSink
    let isGroup: Bool
    let demand: StreamDemand
    private(set) var configuration: CastSpeakersConfiguration
    private let events: EventBroadcaster<CastSpeakersEvent>
    let logger: CastLogger
    private let sinkControl: SinkControl
    let log: Logger
    /// The devices the sink plays to that are present now, by id.
    private(set) var members: [String: CastDevice]
    private var sessions: [String: DeviceSession] = [:]
    private var watchers: [String: Task<Void, Never>] = [:]
    private var retries: [String: Task<Void, Never>] = [:]
    /// Each member's streams that failed or ended in a row, for the back-off.
    private var attempts: [String: Int] = [:]
    /// Each playing member's wait until its stream counts as healthy.
    private var healthy: [String: Task<Void, Never>] = [:]
    private var capture: DesktopAudioCapture?
    var volumeWatcher: Task<Void, Never>?
    /// The receiver the sink's volume follows now: the stream's, or the idle link's.
    var volumeReceiver: ReceiverChannel?
    /// A device's own sink while no stream runs: the control connection that keeps its volume in step.
    var idle: (link: CastDeviceLink?, task: Task<Void, Never>)?
    /// Set once ``run()`` ends: no idle link is made again.
    var isFinishing = false
    private var aligner: Task<Void, Never>?
    private var volume = VolumeLink()
    private var mute = VolumeLink()
    private var lastSink: SoundServerSink?
    private nonisolated let sinkReports: AsyncStream<SoundServerSink>
    private nonisolated let sinkReporter: AsyncStream<SoundServerSink>.Continuation

    /// How long a member's stream must have played for its failures before
    /// to be forgotten: one that the device ends at once is tried again
    /// later and later, as one that never starts.
    static let healthyDuration = Duration.seconds(30)

    init(
        label: String, members: [CastDevice], isGroup: Bool, sinkName: String, sink: SpeakerSink,
        configuration: CastSpeakersConfiguration, events: EventBroadcaster<CastSpeakersEvent>, logger: CastLogger,
        sinkControl: SinkControl
    ) {
        self.label = label
        self.members = Dictionary(members.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
        self.isGroup = isGroup
        self.sinkName = sinkName
        self.sink = sink
        self.configuration = configuration
        self.demand = StreamDemand(gracePeriod: configuration.gracePeriod, clock: configuration.clock)
        self.events = events
        self.logger = logger
        self.log = logger.makeLogger(subsystem: "Speakers")
        self.sinkControl = sinkControl
        (self.sinkReports, self.sinkReporter) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    /// Follows `configuration` from now on: the grace period from the next
    /// silence, the bitrate and delay for the streams started afterwards,
    /// a group's delay at its next alignment; a PipeWire node reports the new delay at once.
    func update(_ configuration: CastSpeakersConfiguration) {
        self.configuration = configuration
        self.demand.gracePeriod = configuration.gracePeriod
        if case .pipeWireNode(let node) = self.sink { node.setLatency(configuration.targetDelay) }
    }

    /// The server reported the sink: its state, volume and mute.
    nonisolated func sinkChanged(_ sink: SoundServerSink) {
        self.demand.update(playing: sink.isPlaying)
        self.sinkReporter.yield(sink)
    }

    /// Follows the demand and the sink's reports until the demand finishes, then stops every stream.
    func run() async {
        self.watchWhileIdle()
        let reports = Task {
            for await sink in self.sinkReports { await self.sinkReported(sink) }
        }
        for await wanted in self.demand.changes {
            if wanted {
                await self.start()
            } else {
                await self.stop()
                self.events.yield(.streamStopped(device: self.label))
            }
        }
        self.sinkReporter.finish()
        await reports.value
        self.isFinishing = true
        await self.stop()
        await self.stopWatchingIdle()
    }

    /// Whether any member streams now.
    var isStreaming: Bool { !self.sessions.isEmpty }

    /// How many of the sink's devices are present.
    var memberCount: Int { self.members.count }

    /// A member came (or came back): it joins the sound at once while the sink plays.
    func add(_ device: CastDevice) async {
        self.members[device.id] = device
        self.watchWhileIdle()
        guard self.demand.isWanted, self.sessions[device.id] == nil, self.retries[device.id] == nil else { return }
        await self.startMembers([device])
    }

    /// A member went away: its stream ends; the others play on.
    func remove(deviceID: String) async {
        self.members[deviceID] = nil
        self.retries.removeValue(forKey: deviceID)?.cancel()
        self.attempts[deviceID] = nil
        await self.stopWatchingIdle()
        await self.stopMember(deviceID)
    }

    // MARK: Streams

    private func start() async {
        guard self.sessions.isEmpty, self.demand.isWanted else { return }
        await self.startMembers(Array(self.members.values))
    }

    /// Starts `devices`' sessions side by side, then feeds each that started.
    private func startMembers(_ devices: [CastDevice]) async {
        let configuration = self.configuration
        let logger = self.logger
        let started = await withTaskGroup(of: (CastDevice, Result<DeviceSession, SpeakersError>).self) { group in
            for device in devices {
                group.addTask {
                    do throws(SpeakersError) {
                        let session = try await DeviceSession.start(
                            to: device, configuration: configuration, logger: logger)
                        return (device, .success(session))
                    } catch {
                        return (device, .failure(error))
                    }
                }
            }
            var results: [(CastDevice, Result<DeviceSession, SpeakersError>)] = []
            for await result in group { results.append(result) }
            return results
        }
        for (device, result) in started {
            switch result {
            case .success(let session):
                guard self.demand.isWanted, self.members[device.id] != nil, self.sessions[device.id] == nil else {
                    await session.stop()
                    continue
                }
                do {
                    try self.feed(session)
                } catch {
                    await session.stop()
                    self.events.yield(.streamFailed(device: device.friendlyName, reason: "\(error)"))
                    self.scheduleRetry(device.id)
                    continue
                }
                self.sessions[device.id] = session
                self.healthy[device.id] = Task { [clock = self.configuration.clock] in
                    guard (try? await clock.sleep(for: Self.healthyDuration)) != nil else { return }
                    self.playedLongEnough(device.id)
                }
                self.events.yield(.streamStarted(device: device.friendlyName, application: session.audio.applicationID))
                self.watchers[device.id] = Task { [weak self] in
                    for await state in session.audio.session.stateUpdates() where state != .active { break }
                    await self?.memberEnded(session)
                }
                if self.isGroup {
                    self.startAligning()
                } else {
                    await self.stopWatchingIdle()
                    await self.followVolume(of: session.receiver)
                }
            case .failure(let error):
                self.events.yield(.streamFailed(device: device.friendlyName, reason: "\(error)"))
                self.scheduleRetry(device.id)
            }
        }
    }

    /// Adds `session` to the running recording of the sink's monitor, or starts one.
    private func feed(_ session: DeviceSession) throws(SpeakersError) {
        if let capture = self.capture, !capture.hasEnded {
            do {
                try capture.add(session.audio.session)
                return
            } catch {
                throw SpeakersError(.streamFailed, "the recording of \(self.sinkName) refused it: \(error)")
            }
        }
        do {
            let recording = DesktopAudioConfiguration(
                server: self.configuration.soundServer, device: "\(self.sinkName).monitor")
            let capture =
                switch self.sink {
                case .nullSink: try DesktopAudioCapture(configuration: recording)
                case .pipeWireNode(let node): try DesktopAudioCapture(configuration: recording, recording: node.tap())
                }
            if !self.isGroup, let sink = self.lastSink { capture.gain = Self.gain(undoing: sink) }
            try capture.start(streamingTo: [session.audio.session] + self.sessions.values.map(\.audio.session))
            self.capture = capture
        } catch {
            throw SpeakersError(.streamFailed, "cannot record \(self.sinkName): \(error)")
        }
    }

    private func memberEnded(_ ended: DeviceSession) async {
        let id = ended.device.id
        guard self.sessions[id] === ended else { return }
        let reason = ended.endReason ?? "the session ended"
        await self.stopMember(id)
        self.events.yield(.streamEnded(device: ended.device.friendlyName, reason: reason))
        self.scheduleRetry(id)
    }

    private func stopMember(_ id: String) async {
        self.watchers.removeValue(forKey: id)?.cancel()
        self.healthy.removeValue(forKey: id)?.cancel()
        guard let session = self.sessions.removeValue(forKey: id) else { return }
        self.capture?.remove(session.audio.session)
        if !self.isGroup {
            self.volumeWatcher?.cancel()
            self.volumeWatcher = nil
            self.volumeReceiver = nil
        }
        if self.sessions.isEmpty {
            self.capture?.stop()
            self.capture = nil
        }
        await session.stop()
        self.watchWhileIdle()
    }

    /// Tries member `id` again after the configuration's back-off: 1 s,
    /// then twice as long each time (to a minute by default), so a device
    /// that refuses the app (NOT_ALLOWED on some speakers) or is gone is not
    /// asked every second while sound plays. The count starts afresh once a
    /// stream has played ``healthyDuration``, and at the next sound after silence.
    private func scheduleRetry(_ id: String) {
        guard self.demand.isWanted, let device = self.members[id], self.retries[id] == nil else { return }
        let attempt = self.attempts[id, default: 0] + 1
        self.attempts[id] = attempt
        guard let delay = self.configuration.retryPolicy.delay(beforeAttempt: attempt) else {
            self.log.warning(
                "gave up on \(device.friendlyName) after \(attempt - 1) attempts; it is tried again at the next sound")
            return
        }
        self.log.notice("trying \(device.friendlyName) again in \(delay)", metadata: ["attempt": "\(attempt)"])
        self.retries[id] = Task { [clock = self.configuration.clock] in
            do {
                try await clock.sleep(for: delay)
            } catch {
                return
            }
            await self.retried(id)
        }
    }

    private func playedLongEnough(_ id: String) {
        self.healthy[id] = nil
        self.attempts[id] = nil
    }

    private func retried(_ id: String) async {
        self.retries[id] = nil
        guard self.demand.isWanted, self.sessions[id] == nil, let device = self.members[id] else { return }
        await self.startMembers([device])
    }

    private func stop() async {
        for retry in self.retries.values { retry.cancel() }
        self.retries = [:]
        self.attempts = [:]
        self.aligner?.cancel()
        self.aligner = nil
        self.capture?.stop()
        self.capture = nil
        for id in Array(self.sessions.keys) { await self.stopMember(id) }
    }

    // MARK: Playing in step (a group's sink)

    /// Reads the members' round trips every ``PlayoutAlignment/interval``
    /// and gives each the target delay that plays it with the others.
    private func startAligning() {
        guard self.aligner == nil else { return }
        self.aligner = Task { [clock = self.configuration.clock] in
            while !Task.isCancelled {
                do {
                    try await clock.sleep(for: PlayoutAlignment.interval)
                } catch {
                    return
                }
                self.align()
            }
        }
    }

    /// Gives each member its target delay; when any changed, says what each
    /// member's is now (``CastSpeakersEvent/groupAligned(group:delays:)``).
    private func align() {
        let roundTrips = self.sessions.compactMapValues { $0.audio.session.currentStatistics.minimumRoundTripTime }
        let delays = PlayoutAlignment.targetDelays(base: self.configuration.targetDelay, roundTrips: roundTrips)
        var changed = false
        for (id, delay) in delays {
            guard let session = self.sessions[id]?.audio.session,
                PlayoutAlignment.isWorthChanging(session.targetDelay, to: delay)
            else { continue }
            session.targetDelay = delay
            changed = true
        }
        guard changed else { return }
        let current = Dictionary(
            self.sessions.values.map { ($0.device.friendlyName, $0.audio.session.targetDelay) },
            uniquingKeysWith: { first, _ in first })
        self.log.info("group \(self.label) in step", metadata: ["delays": "\(current)"])
        self.events.yield(.groupAligned(group: self.label, delays: current))
    }

    // MARK: Volume (a device's own sink)

    /// Keeps the sink's volume and mute in step with `receiver`'s device from now on.
    func followVolume(of receiver: ReceiverChannel) async {
        self.volumeWatcher?.cancel()
        self.volume = VolumeLink()
        self.mute = VolumeLink()
        self.volumeReceiver = receiver
        let deviceEvents = receiver.events()
        self.volumeWatcher = Task { [weak self] in
            for await case .volumeChanged(let volume) in deviceEvents {
                await self?.deviceReported(volume, receiver)
            }
        }
        // The sink as last reported, then the device: the device's volume wins at the start.
        if let sink = self.lastSink { await self.sinkReported(sink) }
        if let volume = receiver.status?.volume { await self.deviceReported(volume, receiver) }
    }

    private func sinkReported(_ sink: SoundServerSink) async {
        self.lastSink = sink
        guard !self.isGroup else { return }
        self.capture?.gain = Self.gain(undoing: sink)
        guard let receiver = self.volumeReceiver else { return }
        await self.apply(
            volume: self.volume.sinkReported(sink.volume), mute: self.mute.sinkReported(sink.isMuted ? 1 : 0), receiver)
    }

    private func deviceReported(_ volume: ReceiverVolume, _ receiver: ReceiverChannel) async {
        guard self.volumeReceiver === receiver else { return }
        let fixed = volume.controlType == .fixed
        if fixed, !self.volume.isFixed {
            self.log.notice("\(self.label) has a fixed volume: its sink stays at 100 % and only the mute follows")
        }
        self.volume.isFixed = fixed
        await self.apply(
            volume: volume.level.map { self.volume.deviceReported($0) } ?? [],
            mute: volume.isMuted.map { self.mute.deviceReported($0 ? 1 : 0) } ?? [], receiver)
    }

    private func apply(volume: [VolumeLink.Step], mute: [VolumeLink.Step], _ receiver: ReceiverChannel) async {
        do {
            for step in volume {
                switch step {
                case .setSink(let level): try self.sinkControl.setVolume(level)
                case .setDevice(let level): try await receiver.setVolume(level)
                }
            }
            for step in mute {
                switch step {
                case .setSink(let muted): try self.sinkControl.setMuted(muted >= 0.5)
                case .setDevice(let muted): try await receiver.setMuted(muted >= 0.5)
                }
            }
        } catch {
            self.log.warning("the volume of \(self.label) could not follow: \(error)")
        }
    }

    /// The recording's gain that undoes the sink's volume (its monitor records after it).
    static func gain(undoing sink: SoundServerSink) -> Float {
        // Below −80 dB the sound is as good as silent: sent as silence, not amplified noise.
        sink.amplitude > 0.000_1 ? Float(1 / sink.amplitude) : 0
    }
}
