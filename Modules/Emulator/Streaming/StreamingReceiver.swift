import CastChannels
@_spi(Receiver) import CastStreaming
import Dispatch
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The emulator's Cast Streaming receiver for one session: a UDP port that
/// takes RTP and RTCP from the sender (through the impaired link), feeds
/// each stream, and sends compound RTCP back on Open Screen's schedule
/// (``ReceiverStreams``).
///
/// Each receiver runs on its own thread, as a device's media pipeline does:
/// decoding and PSNR take milliseconds per 720p frame, and on the event loops
/// that serve the emulator's (and the process's) TLS connections they would
/// hold up every handshake and message behind them.
final class StreamingReceiver: Sendable {
    private struct State {
        var receiving: ReceiverStreams
        var link: ImpairedLink
        var sender: SocketAddress?
    }

    /// The app transport whose OFFER made this receiver.
    let transportID: String
    private let state: NIOLockedValueBox<State>
    private let channel: any Channel
    /// The receiver's own event loop: its socket, ticks, delayed deliveries and decoding.
    private let group: MultiThreadedEventLoopGroup
    private let logger: Logger
    private let ticks: NIOLockedValueBox<RepeatedTask?> = NIOLockedValueBox(nil)

    static let tickInterval: TimeAmount = .milliseconds(10)

    private init(
        transportID: String, streams: [ReceiverStream], impairment: NetworkImpairment, channel: any Channel,
        group: MultiThreadedEventLoopGroup, logger: Logger
    ) {
        self.transportID = transportID
        self.state = NIOLockedValueBox(State(receiving: ReceiverStreams(streams), link: ImpairedLink(impairment)))
        self.channel = channel
        self.group = group
        self.logger = logger
    }

    /// Starts a thread, binds a UDP port on `host` and starts receiving `streams`.
    static func start(
        transportID: String, streams: [ReceiverStream], configuration: StreamingReceiverConfiguration, host: String,
        logger: Logger
    ) -> EventLoopFuture<StreamingReceiver> {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let box = NIOLockedValueBox<StreamingReceiver?>(nil)
        let started = DatagramBootstrap(group: group)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(DatagramHandler(receiver: box))
                }
            }
            .bind(host: host, port: 0)
            .map { channel in
                let receiver = StreamingReceiver(
                    transportID: transportID, streams: streams, impairment: configuration.impairment,
                    channel: channel, group: group, logger: logger)
                box.withLockedValue { $0 = receiver }
                let task = channel.eventLoop.scheduleRepeatedTask(
                    initialDelay: Self.tickInterval, delay: Self.tickInterval
                ) { _ in receiver.tick() }
                receiver.ticks.withLockedValue { $0 = task }
                return receiver
            }
        started.whenFailure { _ in group.shutdownGracefully(queue: .global()) { _ in } }
        return started
    }

    /// The bound UDP port.
    var port: Int { self.channel.localAddress?.port ?? 0 }

    /// Stops receiving, closes the port and ends the thread; the report stays.
    func close() {
        self.ticks.withLockedValue { $0?.cancel() }
        let group = self.group
        self.channel.close().whenComplete { _ in group.shutdownGracefully(queue: .global()) { _ in } }
    }

    /// Changes the impairment from the next datagram on.
    func updateImpairment(_ impairment: NetworkImpairment) {
        self.state.withLockedValue { $0.link.update(impairment) }
    }

    /// Asks the sender for a key frame (PLI) from the next feedback on.
    func requestKeyFrame() {
        self.state.withLockedValue { $0.receiving.requestKeyFrame() }
    }

    /// Starts every stream's report anew.
    func resetStatistics() {
        self.state.withLockedValue { state in
            for stream in state.receiving.streams { stream.resetStatistics() }
        }
    }

    /// What was measured so far.
    var report: StreamingReport {
        self.state.withLockedValue { state in
            StreamingReport(
                audio: state.receiving.streams.first { $0.kind == .audio }?.currentReport,
                video: state.receiving.streams.first { $0.kind == .video }?.currentReport,
                datagramsDroppedByImpairment: state.link.dropped,
                feedbackPacketsSent: state.receiving.feedbackPackets,
                senderReportsReceived: state.receiving.senderReports)
        }
    }

    // MARK: Datagrams

    /// A datagram from the network: through the impaired link, now or later.
    fileprivate func arrived(_ envelope: AddressedEnvelope<ByteBuffer>) {
        let now = HostTime.now
        guard
            let arrival = self.state.withLockedValue({ $0.link.arrival(ofBytes: envelope.data.readableBytes, at: now) })
        else { return }
        let wait = now.duration(to: arrival)
        guard wait > .zero else {
            self.deliver(envelope)
            return
        }
        self.channel.eventLoop.scheduleTask(in: TimeAmount(wait)) { self.deliver(envelope) }
    }

    private func deliver(_ envelope: AddressedEnvelope<ByteBuffer>) {
        let bytes = Array(envelope.data.readableBytesView)
        let now = HostTime.now
        let replies: [(ByteBuffer, SocketAddress)] = self.state.withLockedValue { state in
            if let sender = state.sender, sender != envelope.remoteAddress { return [] }
            guard state.receiving.take(bytes, at: now) else { return [] }
            // The first valid packet fixes the sender's endpoint.
            state.sender = state.sender ?? envelope.remoteAddress
            return self.dueFeedback(&state, at: now)
        }
        self.send(replies)
    }

    // MARK: Feedback

    private func tick() {
        let now = HostTime.now
        let replies = self.state.withLockedValue { state in
            state.receiving.tick(at: now)
            return self.dueFeedback(&state, at: now)
        }
        self.send(replies)
    }

    private func dueFeedback(_ state: inout State, at now: HostTime) -> [(ByteBuffer, SocketAddress)] {
        guard let sender = state.sender else { return [] }
        return state.receiving.dueFeedback(at: now).map { (self.channel.allocator.buffer(bytes: $0), sender) }
    }

    private func send(_ replies: [(ByteBuffer, SocketAddress)]) {
        guard !replies.isEmpty else { return }
        let delay = self.state.withLockedValue { $0.link.impairment.returnDelay }
        let write: @Sendable () -> Void = {
            for (buffer, address) in replies {
                self.channel.writeAndFlush(AddressedEnvelope(remoteAddress: address, data: buffer), promise: nil)
            }
        }
        guard delay > .zero else { return write() }
        self.channel.eventLoop.scheduleTask(in: TimeAmount(delay), write)
    }
}

/// Hands datagrams to the receiver once it exists.
private final class DatagramHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = AddressedEnvelope<ByteBuffer>

    private let receiver: NIOLockedValueBox<StreamingReceiver?>

    init(receiver: NIOLockedValueBox<StreamingReceiver?>) {
        self.receiver = receiver
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        self.receiver.withLockedValue { $0 }?.arrived(Self.unwrapInboundIn(data))
    }
}
