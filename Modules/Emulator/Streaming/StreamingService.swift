import CastChannels
@_spi(Receiver) import CastStreaming
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// The emulator's Cast Streaming side: answers OFFERs on the webrtc
/// namespace of a running app that lists it, runs one receiver at a time,
/// and keeps the last receiver's measurements after it stops.
final class StreamingService: Sendable {
    private struct State {
        var configuration = StreamingReceiverConfiguration()
        var receiver: StreamingReceiver?
        var isRunning = false
        /// Told the transport of an app whose session got no packet within the first-frame deadline.
        var idle: (@Sendable (String) -> Void)?
    }

    private let host: String
    private let logger: Logger
    private let state = NIOLockedValueBox(State())
    /// Told each ended stream's report.
    private let ended: @Sendable (StreamingReport) -> Void

    init(
        host: String, configuration: StreamingReceiverConfiguration, logger: Logger,
        ended: @escaping @Sendable (StreamingReport) -> Void
    ) {
        self.host = host
        self.logger = logger
        self.ended = ended
        self.state.withLockedValue { $0.configuration = configuration }
    }

    /// The configuration for the next OFFER; the impairment applies at once.
    var configuration: StreamingReceiverConfiguration {
        get { self.state.withLockedValue { $0.configuration } }
        set {
            let receiver = self.state.withLockedValue { state in
                state.configuration = newValue
                return state.receiver
            }
            receiver?.updateImpairment(newValue.impairment)
        }
    }

    /// The current or last session's measurements.
    var report: StreamingReport? {
        self.state.withLockedValue { $0.receiver }?.report
    }

    /// Whether a receiver is running now.
    var isReceiving: Bool { self.state.withLockedValue { $0.isRunning } }

    /// The running receiver's UDP port.
    var port: Int? {
        self.state.withLockedValue { $0.isRunning ? $0.receiver?.port : nil }
    }

    /// What to do with an app whose session got no packet within the
    /// configuration's first-frame deadline: the hub stops it, as receivers do.
    func onIdle(_ handler: @escaping @Sendable (_ transportID: String) -> Void) {
        self.state.withLockedValue { $0.idle = handler }
    }

    /// Starts the running receiver's report anew.
    func resetStatistics() {
        self.state.withLockedValue { $0.isRunning ? $0.receiver : nil }?.resetStatistics()
    }

    /// Sends a PLI for the video stream from the next feedback on.
    func requestKeyFrame() {
        self.state.withLockedValue { $0.isRunning ? $0.receiver : nil }?.requestKeyFrame()
    }

    /// Answers `message` (an OFFER to `transportID`) through `reply`.
    func handle(
        _ message: JSONValue, transportID: String,
        reply: @escaping @Sendable (JSONValue) -> Void
    ) {
        guard message["type"]?.stringValue == "OFFER" else {
            self.logger.debug("dropping a webrtc message that is not an OFFER")
            return
        }
        let sequenceNumber = message["seqNum"]?.intValue ?? 0
        let configuration = self.configuration
        let negotiation: StreamingNegotiation
        do throws(StreamingNegotiation.Refusal) {
            negotiation = try Self.negotiate(message, configuration: configuration)
        } catch {
            reply(
                StreamingNegotiation.refusal(
                    sequenceNumber: sequenceNumber, code: error.code, description: error.description))
            return
        }
        let streams: [ReceiverStream]
        do {
            streams = try Self.receiverStreams(for: negotiation, configuration: configuration)
        } catch {
            reply(
                StreamingNegotiation.refusal(
                    sequenceNumber: sequenceNumber, code: StreamingNegotiation.invalidParameter,
                    description: "\(error)"))
            return
        }
        StreamingReceiver.start(
            transportID: transportID, streams: streams, configuration: configuration, host: self.host,
            logger: self.logger
        ).whenComplete { result in
            switch result {
            case .success(let receiver):
                self.adopt(receiver, negotiation: negotiation, configuration: configuration, reply: reply)
            case .failure(let error):
                reply(
                    StreamingNegotiation.refusal(
                        sequenceNumber: sequenceNumber, code: StreamingNegotiation.invalidParameter,
                        description: "cannot bind a UDP port: \(error)"))
            }
        }
    }

    /// The negotiation of `offer` under `configuration`: refused outright when the
    /// configuration says to reject, else as the offer and the accepted codecs allow.
    private static func negotiate(
        _ offer: JSONValue, configuration: StreamingReceiverConfiguration
    ) throws(StreamingNegotiation.Refusal) -> StreamingNegotiation {
        if case .reject(let code, let description) = configuration.answer {
            throw StreamingNegotiation.Refusal(code: code, description: description)
        }
        return try StreamingNegotiation(
            offer: offer, audioOnly: configuration.answer == .acceptAudioOnly,
            videoCodecs: configuration.videoCodecs)
    }

    /// One receiving stream for each stream `negotiation` selected, set up as `configuration` says.
    private static func receiverStreams(
        for negotiation: StreamingNegotiation, configuration: StreamingReceiverConfiguration
    ) throws -> [ReceiverStream] {
        try negotiation.streams.map { stream in
            try ReceiverStream(
                kind: stream.kind, senderSSRC: stream.ssrc, payloadType: stream.payloadType,
                timebase: stream.timebase, key: stream.key, channels: stream.channels,
                playoutDelay: stream.targetDelay, decodes: configuration.decodes,
                reference: configuration.videoReference, observer: configuration.observer, codec: stream.codec)
        }
    }

    /// Makes the started `receiver` the running one, closing and reporting the one it replaces,
    /// watches its first frame, and answers the OFFER with its port.
    private func adopt(
        _ receiver: StreamingReceiver, negotiation: StreamingNegotiation,
        configuration: StreamingReceiverConfiguration, reply: @Sendable (JSONValue) -> Void
    ) {
        let previous = self.state.withLockedValue { state in
            defer {
                state.receiver = receiver
                state.isRunning = true
            }
            return state.isRunning ? state.receiver : nil
        }
        if let previous {
            previous.close()
            self.ended(previous.report)
        }
        if let deadline = configuration.firstFrameDeadline { self.watch(receiver, deadline: deadline) }
        reply(
            negotiation.answer(
                port: receiver.port, constraints: configuration.constraints, display: configuration.display))
    }

    /// Stops `receiver`'s app if, `deadline` after it started, it is still
    /// the running receiver and has received nothing.
    private func watch(_ receiver: StreamingReceiver, deadline: Duration) {
        Task { [weak self] in
            try? await Task.sleep(for: deadline)
            guard let self else { return }
            let idle = self.state.withLockedValue { state in
                state.isRunning && state.receiver === receiver ? state.idle : nil
            }
            let report = receiver.report
            let packets = (report.video?.packetsReceived ?? 0) + (report.audio?.packetsReceived ?? 0)
            guard let idle, packets == 0 else { return }
            self.logger.info(
                "no frame within the first-frame deadline; stopping the app",
                metadata: ["cast.deadline": "\(deadline)"])
            idle(receiver.transportID)
        }
    }

    /// The emulator stopped: the running receiver stops (its report stays).
    func stop() {
        self.stopReceiver { _ in true }
    }

    /// The app on `transportID` stopped: its receiver stops (its report stays).
    func applicationStopped(transportID: String) {
        self.stopReceiver { $0.transportID == transportID }
    }

    /// Stops the running receiver if `matches` it; its report stays.
    private func stopReceiver(where matches: (StreamingReceiver) -> Bool) {
        let stopped = self.state.withLockedValue { state -> StreamingReceiver? in
            guard state.isRunning, let receiver = state.receiver, matches(receiver) else { return nil }
            state.isRunning = false
            return receiver
        }
        guard let stopped else { return }
        stopped.close()
        self.ended(stopped.report)
    }
}
