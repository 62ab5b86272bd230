import CastCommon
public import CastDiscovery
public import CastLogging
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
/// The sinks are PulseAudio's `module-null-sink`, made through libpulse,
/// which PipeWire's pulse server serves too; each is named
/// `cast.<device id>` and described by the device's name. They are removed
/// when ``run(following:)`` returns, and any left by a process that did not
/// get to remove them are removed when the next one starts.
public final class CastSpeakers: Sendable {
    /// How the sinks are made and streamed to.
    public let configuration: CastSpeakersConfiguration
    private let server: SoundServerConnection
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
        self.configuration = configuration
        self.logger = logger
        self.log = logger.makeLogger(subsystem: "Speakers")
        self.server = try SoundServerConnection(server: configuration.soundServer)
        for module in try self.server.modules()
        where module.name == "module-null-sink" && module.argument.hasPrefix("sink_name=\(Self.sinkPrefix)") {
            self.log.notice("removing a sink a previous run left", metadata: ["module": "\(module.argument)"])
            try? self.server.unloadModule(module.index)
        }
    }

    /// What happens: sinks added and removed, streams started and stopped.
    public func events() -> AsyncStream<CastSpeakersEvent> {
        self.broadcaster.subscribe()
    }

    /// The sinks made so far, by device id: their names.
    public var sinkNames: [String: String] {
        self.outputs.withLockedValue { $0.mapValues { $0.output.sinkName } }
    }

    /// The sink name for a device: `cast.` and its id, in the characters a sink name may hold.
    public static func sinkName(for device: CastDevice) -> String {
        let allowed = device.id.lowercased().map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" }
        return Self.sinkPrefix + String(allowed)
    }

    /// Follows `discovery`: a sink for each device that appears and passes
    /// ``CastSpeakersConfiguration/includes``, removed when it goes, each
    /// streaming while sound reaches it. Returns when `discovery` ends or
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
            group.addTask {
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
            group.addTask {
                for await event in discovery {
                    switch event {
                    case .found(let device), .updated(let device, _):
                        if self.configuration.includes(device) {
                            self.add(device)
                        } else {
                            await self.remove(deviceID: device.id)
                        }
                    case .lost(let device, _):
                        await self.remove(deviceID: device.id)
                    }
                }
            }
            // Whichever ends first (discovery over, the server gone, cancellation) ends both.
            _ = await group.next()
            group.cancelAll()
        }
        for deviceID in self.outputs.withLockedValue({ Array($0.keys) }) {
            await self.remove(deviceID: deviceID)
        }
        self.server.close()
        if let reason = lost.withLockedValue({ $0 }) {
            throw SpeakersError(.soundServerUnavailable, "the sound server went away: \(reason)")
        }
    }

    private func add(_ device: CastDevice) {
        guard !self.outputs.withLockedValue({ $0.keys.contains(device.id) }) else { return }
        let name = Self.sinkName(for: device)
        let module: UInt32
        do {
            module = try self.server.loadNullSink(name: name, description: device.friendlyName)
        } catch {
            self.log.error("no sink for \(device.friendlyName): \(error)")
            return
        }
        let output = SpeakerOutput(
            device: device, sinkName: name, module: module, configuration: self.configuration,
            events: self.broadcaster, logger: self.logger,
            sinkControl: SpeakerOutput.SinkControl(
                setVolume: { [server = self.server] volume throws(SpeakersError) in
                    try server.setVolume(volume, ofSink: name)
                },
                setMuted: { [server = self.server] muted throws(SpeakersError) in try server.setMuted(muted, sink: name)
                }
            ))
        let task = Task { await output.run() }
        self.outputs.withLockedValue { $0[device.id] = (output, task) }
        self.log.info("sink \(name) for \(device.friendlyName)")
        self.broadcaster.yield(.sinkAdded(sink: name, device: device.friendlyName))
    }

    private func remove(deviceID: String) async {
        guard let (output, task) = self.outputs.withLockedValue({ $0.removeValue(forKey: deviceID) }) else { return }
        output.demand.finish()
        await task.value
        try? self.server.unloadModule(output.module)
        self.broadcaster.yield(.sinkRemoved(sink: output.sinkName, device: output.device.friendlyName))
    }
}
