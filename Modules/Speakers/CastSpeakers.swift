import CastCommon
public import CastDiscovery
public import CastLogging
import Foundation
import Logging
import NIOConcurrencyHelpers

/// Cast speakers, speaker groups and TVs as the desktop's sound outputs:
/// a sink in the user's sound server for each device discovery finds, so
/// apps and the desktop's sound settings list them beside the computer's
/// own speakers.
///
/// Sound reaching a sink starts an audio-only Cast Streaming session to
/// its device (`AudioCastSession`: the audio mirroring app, or screen
/// mirroring where a device lacks it), fed from the sink's monitor;
/// ``CastSpeakersConfiguration/gracePeriod`` of silence ends it. A stream
/// the device ends (another sender took over, the app was stopped, the
/// connection dropped) starts again while sound still reaches the sink.
///
/// ```swift
/// let discovery = DiscoveryManager()
/// let speakers = try CastSpeakers()
/// try await discovery.start()
/// try await speakers.run(following: discovery.events())   // until cancelled
/// ```
///
/// The sinks are PulseAudio's `module-null-sink`, made through libpulse;
/// where the sound server is PipeWire's, nodes of this type's own that
/// report ``CastSpeakersConfiguration/targetDelay`` as their latency, so
/// players compensate for it. Each is named after its device
/// (`cast.kitchen_speaker` for "Kitchen speaker") and described by the
/// device's name. They are removed
/// when ``run(following:)`` returns, and any left by a process that did not
/// get to remove them are removed when the next one starts. Each sink names
/// the process that made it (its `cast.owner` property), so a second
/// instance on the same sound server — another desktop session, another
/// user of a system-wide server — leaves the first's sinks alone; where it
/// finds a device's sink name taken, the server gives its sink another
/// (`cast.kitchen_speaker.2`), and the events and ``sinkNames`` say which.
public final class CastSpeakers: Sendable {
    /// How the sinks are made and streamed to: as made, or as last
    /// ``reconfigure(_:)``d.
    public var configuration: CastSpeakersConfiguration { self.current.withLockedValue { $0 } }
    private let current: NIOLockedValueBox<CastSpeakersConfiguration>
    /// Discovery's devices and new configurations, handled one at a time in ``run(following:)``.
    private let changes: AsyncStream<Change>
    private let changer: AsyncStream<Change>.Continuation
    /// The devices discovery reports present, by id (every one, taken or not).
    private let present = NIOLockedValueBox([String: CastDevice]())
    private let server: SoundServerConnection
    /// The PipeWire behind the sound server, whose own nodes the sinks are; `nil` on PulseAudio.
    private let pipeWire: PipeWireRemote?
    /// The one connection to it the sinks are made on, once one is.
    private let pipeWireLink = NIOLockedValueBox(PipeWireConnection?.none)
    private let broadcaster = EventBroadcaster<CastSpeakersEvent>(initial: nil, replaysLatest: false)
    private let outputs = NIOLockedValueBox([String: (output: SpeakerOutput, task: Task<Void, Never>)]())
    private let hasRun = NIOLockedValueBox(false)
    private let logger: CastLogger
    private let log: Logger

    /// The prefix of every sink this type makes.
    public static let sinkPrefix = "cast."

    /// Connects to the sound server and removes sinks a previous run left.
    ///
    /// - Throws: ``SpeakersError/Code-swift.enum/soundServerUnavailable``
    ///   when no sound server answers;
    ///   ``SpeakersError/Code-swift.enum/invalidConfiguration`` for a value out of range.
    public init(
        configuration: CastSpeakersConfiguration = CastSpeakersConfiguration(), logger: CastLogger = .shared
    ) throws(SpeakersError) {
        try configuration.validate()
        self.current = NIOLockedValueBox(configuration)
        (self.changes, self.changer) = AsyncStream.makeStream()
        self.logger = logger
        self.log = logger.makeLogger(subsystem: "Speakers")
        self.server = try SoundServerConnection(server: configuration.soundServer)
        self.pipeWire = PipeWireRemote.behind(
            serverName: (try? self.server.serverName()) ?? "", address: configuration.soundServer)
        for module in try self.server.modules()
        where module.name == "module-null-sink" && module.argument.hasPrefix("sink_name=\(Self.sinkPrefix)") {
            // Another instance's, of this user or another on the same server, while it runs.
            if let owner = SinkOwner(moduleArgument: module.argument), owner.isRunning { continue }
            self.log.notice("removing a sink a process that ended left", metadata: ["module": "\(module.argument)"])
            try? self.server.unloadModule(module.index)
        }
    }

    /// What happens: sinks added and removed, streams started and stopped.
    public func events() -> AsyncStream<CastSpeakersEvent> {
        self.broadcaster.subscribe()
    }

    /// The names of the sinks made so far.
    public var sinkNames: [String] {
        self.outputs.withLockedValue { $0.values.map(\.output.sinkName).sorted() }
    }

    /// The sink name for a device: `cast.` and its name in the characters a
    /// sink name may hold (`cast.kitchen_speaker`), or its id where its name
    /// keeps none of them.
    public static func sinkName(for device: CastDevice) -> String {
        Self.sinkPrefix
            + (Self.sinkNameCharacters(device.friendlyName) ?? Self.sinkNameCharacters(device.id) ?? "device")
    }

    /// The sink name for a group: `cast.group.` and its name, in the characters a sink name may hold.
    public static func sinkName(for group: CastSpeakersGroup) -> String {
        Self.sinkPrefix + "group." + (Self.sinkNameCharacters(group.name) ?? "group")
    }

    /// `text` lowercased, without accents, each run of other characters than
    /// ASCII letters, digits and `-` one `_`; `nil` when no letter or digit is left.
    static func sinkNameCharacters(_ text: String) -> String? {
        let plain = text.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil)
        var name = ""
        for character in plain {
            if character.isASCII && (character.isLetter || character.isNumber || character == "-") {
                name.append(character)
            } else if !name.isEmpty, name.last != "_" {
                name.append("_")
            }
        }
        while name.last == "_" { name.removeLast() }
        return name.contains { $0.isLetter || $0.isNumber } ? name : nil
    }

    /// Follows `discovery`: a sink for each device that appears and passes
    /// ``CastSpeakersConfiguration/includes``, removed when it goes, and one
    /// for each of ``CastSpeakersConfiguration/groups`` while any of its
    /// members is present; each streams while sound reaches it. Returns when `discovery` ends or
    /// the task is cancelled, after removing every sink and ending every
    /// stream. It runs once: the connection to the sound server closes at the end.
    ///
    /// - Throws: ``SpeakersError/Code-swift.enum/soundServerUnavailable``
    ///   when the sound server goes away (the sinks went with it);
    ///   ``SpeakersError/Code-swift.enum/invalidConfiguration`` when it ran before.
    public func run(following discovery: AsyncStream<DiscoveryEvent>) async throws(SpeakersError) {
        guard
            !self.hasRun.withLockedValue({ hasRun in
                defer { hasRun = true }
                return hasRun
            })
        else {
            throw SpeakersError(.invalidConfiguration, "a CastSpeakers runs once; make another")
        }
        let lost = NIOLockedValueBox(String?.none)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.followServer(lost: lost) }
            group.addTask { await self.handleChanges(following: discovery) }
            // Whichever ends first (discovery over, the server gone, cancellation) ends both.
            _ = await group.next()
            group.cancelAll()
        }
        self.changer.finish()
        // A reconfiguration that came too late to be applied is not waited for.
        for await change in self.changes {
            if case .configuration(_, let applied) = change { applied.resume() }
        }
        for key in self.outputs.withLockedValue({ Array($0.keys) }) {
            await self.removeOutput(key)
        }
        self.server.close()
        if let reason = lost.withLockedValue({ $0 }) {
            throw SpeakersError(.soundServerUnavailable, "the sound server went away: \(reason)")
        }
    }

    /// Passes the sound server's sink changes to their outputs until the
    /// server goes away, whose reason it records in `lost`.
    private func followServer(lost: NIOLockedValueBox<String?>) async {
        for await event in self.server.events {
            switch event {
            case .sinkChanged(let sink):
                let output = self.outputs.withLockedValue { outputs in
                    outputs.values.first { $0.output.sinkName == sink.name }?.output
                }
                output?.sinkChanged(sink)
            case .sinkRemoved:
                continue
            case .serverLost(let reason):
                lost.withLockedValue { $0 = reason }
                return
            }
        }
    }

    /// Forwards `discovery` into the changes, then handles each change in
    /// order (devices found, updated and lost, new configurations) until they end.
    private func handleChanges(following discovery: AsyncStream<DiscoveryEvent>) async {
        let forwarding = Task {
            for await event in discovery { self.changer.yield(.discovery(event)) }
            self.changer.finish()
        }
        defer { forwarding.cancel() }
        for await change in self.changes {
            switch change {
            case .discovery(.found(let device)), .discovery(.updated(let device, _)):
                self.present.withLockedValue { $0[device.id] = device }
                await self.deviceAppeared(device)
            case .discovery(.lost(let device, _)):
                self.present.withLockedValue { $0[device.id] = nil }
                await self.deviceLeft(device.id)
            case .configuration(let configuration, let applied):
                await self.apply(configuration)
                applied.resume()
            }
        }
    }

    /// Makes the running speakers follow `configuration`, without removing
    /// the sinks it still wants (apps playing into them play on): devices
    /// it no longer takes lose their sinks, ones it now takes get one, and
    /// groups are added, removed or change members. The grace period,
    /// bitrate and delay apply to streams started afterwards (a group's
    /// delay at once). Returns once applied; before ``run(following:)``,
    /// it only replaces the configuration.
    ///
    /// - Throws: ``SpeakersError/Code-swift.enum/invalidConfiguration`` for a
    ///   value out of range, or another sound server (that takes another
    ///   `CastSpeakers`); the configuration then stays as it was.
    public func reconfigure(_ configuration: CastSpeakersConfiguration) async throws(SpeakersError) {
        try configuration.validate()
        guard configuration.soundServer == self.configuration.soundServer else {
            throw SpeakersError(
                .invalidConfiguration, "the sound server cannot change while running; make another CastSpeakers")
        }
        let running = self.hasRun.withLockedValue { $0 }
        guard running else {
            self.current.withLockedValue { $0 = configuration }
            return
        }
        await withCheckedContinuation { (applied: CheckedContinuation<Void, Never>) in
            if case .terminated = self.changer.yield(.configuration(configuration, applied)) {
                applied.resume()
            }
        }
    }

    private func apply(_ configuration: CastSpeakersConfiguration) async {
        let old = self.current.withLockedValue { current in
            defer { current = configuration }
            return current
        }
        let kept = Set(configuration.groups.map(\.name))
        for group in old.groups where !kept.contains(group.name) {
            await self.removeOutput(Self.groupKey(group))
        }
        for output in self.outputs.withLockedValue({ $0.values.map(\.output) }) {
            await output.update(configuration)
        }
        for device in self.present.withLockedValue({ Array($0.values) }) {
            await self.deviceAppeared(device)
        }
        self.log.info("configuration applied", metadata: ["sinks": "\(self.sinkNames)"])
    }

    /// A device appeared or changed: its own sink (when ``CastSpeakersConfiguration/includes``
    /// takes it) and its place in each group that names it.
    private func deviceAppeared(_ device: CastDevice) async {
        if self.configuration.includes(device) {
            if self.output(Self.deviceKey(device.id)) == nil {
                self.addOutput(
                    key: Self.deviceKey(device.id), label: device.friendlyName, members: [device], isGroup: false,
                    sinkName: Self.sinkName(for: device))
            }
        } else {
            await self.removeOutput(Self.deviceKey(device.id))
        }
        for group in self.configuration.groups {
            let key = Self.groupKey(group)
            if group.includes(device) {
                if let output = self.output(key) {
                    await output.add(device)
                } else {
                    self.addOutput(
                        key: key, label: group.name, members: [device], isGroup: true,
                        sinkName: Self.sinkName(for: group))
                    self.reportMissingMembers(of: group)
                }
            } else if let output = self.output(key) {
                await self.leave(output, key: key, deviceID: device.id)
            }
        }
    }

    /// How long after a group's sink is made its members still missing are
    /// named: discovery finds devices one by one, a few hundred milliseconds apart.
    static let memberPatience = Duration.seconds(10)

    /// Says which of `group`'s members no present device matches, once, ``memberPatience``
    /// after its sink was made (on the configuration's clock), if the sink is still there.
    private func reportMissingMembers(of group: CastSpeakersGroup) {
        let key = Self.groupKey(group)
        Task { [clock = self.configuration.clock] in
            guard (try? await clock.sleep(for: Self.memberPatience)) != nil, self.output(key) != nil else { return }
            let present = self.present.withLockedValue { Array($0.values) }
            for member in group.members
            where !present.contains(where: { CastSpeakersGroup.member(member, names: $0) }) {
                self.log.notice("group \(group.name): no device named \(member) found yet")
                self.broadcaster.yield(.memberNotFound(group: group.name, member: member))
            }
        }
    }

    /// A device went away: its sink goes, and so does a group's whose last member it was.
    private func deviceLeft(_ deviceID: String) async {
        await self.removeOutput(Self.deviceKey(deviceID))
        for group in self.configuration.groups {
            let key = Self.groupKey(group)
            if let output = self.output(key) { await self.leave(output, key: key, deviceID: deviceID) }
        }
    }

    private func leave(_ output: SpeakerOutput, key: String, deviceID: String) async {
        await output.remove(deviceID: deviceID)
        if await output.memberCount == 0 { await self.removeOutput(key) }
    }

    /// What ``run(following:)`` handles, in order.
    private enum Change: Sendable {
        case discovery(DiscoveryEvent)
        /// A new configuration, and who waits until it is applied.
        case configuration(CastSpeakersConfiguration, CheckedContinuation<Void, Never>)
    }

    private static func deviceKey(_ id: String) -> String { "device:\(id)" }
    private static func groupKey(_ group: CastSpeakersGroup) -> String { "group:\(group.name)" }

    private func output(_ key: String) -> SpeakerOutput? {
        self.outputs.withLockedValue { $0[key]?.output }
    }

    private func addOutput(key: String, label: String, members: [CastDevice], isGroup: Bool, sinkName name: String) {
        // A name already taken (another instance's sink for the same device, or one the
        // user made) gets a suffix, as PulseAudio gives one: PipeWire's pulse server
        // would make a second sink of the same name (measured, 0.3.65), and volume and
        // recording by name would reach either.
        let taken = Set(((try? self.server.sinks()) ?? []).map(\.name))
        var free = name
        var suffix = 2
        while taken.contains(free) {
            free = "\(name).\(suffix)"
            suffix += 1
        }
        guard let sink = self.makeSink(name: free, label: label) else { return }
        // A name taken meanwhile: PulseAudio names the sink otherwise; it is the module's.
        let sinkName =
            sink.module.flatMap { module in try? self.server.sinks().first { $0.module == module }?.name } ?? free
        if sinkName != name {
            self.log.warning(
                "sink name \(name) is taken (another cast speakers, or a sink made by hand); \(label) is \(sinkName)")
        }
        let name = sinkName
        let output = SpeakerOutput(
            label: label, members: members, isGroup: isGroup, sinkName: name, sink: sink,
            configuration: self.configuration, events: self.broadcaster, logger: self.logger,
            sinkControl: SpeakerOutput.SinkControl(
                setVolume: { [server = self.server] volume throws(SpeakersError) in
                    try server.setVolume(volume, ofSink: name)
                },
                setMuted: { [server = self.server] muted throws(SpeakersError) in try server.setMuted(muted, sink: name)
                }
            ))
        let task = Task { await output.run() }
        self.outputs.withLockedValue { $0[key] = (output, task) }
        self.log.info("sink \(name) for \(label)")
        self.broadcaster.yield(.sinkAdded(sink: name, device: label))
    }

    /// A sink named `name` described as `label`: on PipeWire a node of our
    /// own that reports the device's latency, elsewhere a null sink; `nil`
    /// (logged) when the server refuses.
    private func makeSink(name: String, label: String) -> SpeakerSink? {
        do {
            if let connection = try self.pipeWireConnection() {
                return .pipeWireNode(
                    try PipeWireSink(
                        on: connection, name: name, description: label, latency: self.configuration.targetDelay,
                        owner: SinkOwner.current))
            }
            return .nullSink(
                module: try self.server.loadNullSink(name: name, description: label, owner: SinkOwner.current))
        } catch {
            self.log.error("no sink for \(label): \(error)")
            return nil
        }
    }

    /// The connection every sink is made on where the server is PipeWire's
    /// (made again when it broke); `nil` on PulseAudio.
    private func pipeWireConnection() throws(SpeakersError) -> PipeWireConnection? {
        guard let pipeWire = self.pipeWire else { return nil }
        let made = self.pipeWireLink.withLockedValue { link -> Result<PipeWireConnection, SpeakersError> in
            if let connection = link, !connection.hasFailed { return .success(connection) }
            do throws(SpeakersError) {
                let connection = try PipeWireConnection(remote: pipeWire.socket)
                link = connection
                return .success(connection)
            } catch {
                return .failure(error)
            }
        }
        return try made.get()
    }

    private func removeOutput(_ key: String) async {
        guard let (output, task) = self.outputs.withLockedValue({ $0.removeValue(forKey: key) }) else { return }
        output.demand.finish()
        await task.value
        switch output.sink {
        case .nullSink(let module): try? self.server.unloadModule(module)
        case .pipeWireNode(let node): node.close()
        }
        self.broadcaster.yield(.sinkRemoved(sink: output.sinkName, device: output.label))
    }
}
