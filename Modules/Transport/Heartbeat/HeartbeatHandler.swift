package import Logging
package import NIOCore
import NIOTLS

/// Keeps a connection alive and detects a dead peer: answers PING with PONG,
/// sends PING after inbound silence, and closes the socket with
/// ``CastTransportError/Code/heartbeatTimedOut`` when the silence lasts the
/// whole timeout. Heartbeat messages stop here; everything else passes on.
///
/// Both sides use it: the sender with `localID` `sender-0` towards
/// `receiver-0`, the emulator the other way round. Decisions live in
/// ``HeartbeatMonitor``; this handler only feeds it and acts.
package final class HeartbeatHandler: ChannelInboundHandler {
    package typealias InboundIn = CastMessage
    package typealias InboundOut = CastMessage
    package typealias OutboundOut = ByteBuffer

    private let configuration: HeartbeatConfiguration
    private let localID: String
    private var peerID: String
    private let isSilenced: @Sendable () -> Bool
    private let logger: Logger
    private var monitor: HeartbeatMonitor?
    private var timer: Scheduled<Void>?

    /// Creates a handler.
    ///
    /// - Parameters:
    ///   - configuration: ping interval and timeout.
    ///   - localID: this side's platform id, the source of PINGs and PONGs.
    ///   - peerID: the other side's platform id, the destination of PINGs
    ///     (replaced by the source of the latest PING received).
    ///   - isSilenced: when it returns `true`, the handler neither answers nor
    ///     sends PINGs (a hung device; used by the emulator's fault knobs).
    ///   - logger: where heartbeat events are logged, at trace level.
    package init(
        configuration: HeartbeatConfiguration,
        localID: String,
        peerID: String,
        isSilenced: @escaping @Sendable () -> Bool = { false },
        logger: Logger
    ) {
        self.configuration = configuration
        self.localID = localID
        self.peerID = peerID
        self.isSilenced = isSilenced
        self.logger = logger
    }

    /// The heartbeat starts once TLS is up: a slow handshake is the connect
    /// timeout's business, not the heartbeat's.
    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event {
            self.start(context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        self.timer?.cancel()
        self.timer = nil
        context.fireChannelInactive()
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        self.timer?.cancel()
        self.timer = nil
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let message = Self.unwrapInboundIn(data)
        self.monitor?.inboundReceived(at: context.eventLoop.now)
        guard message.namespace == TransportNamespace.heartbeat else {
            context.fireChannelRead(data)
            return
        }
        switch message.text.flatMap(HeartbeatMessage.init(text:)) {
        case .ping:
            self.logger.trace("PING received", metadata: ["cast.source": "\(message.sourceID)"])
            self.peerID = message.sourceID
            if !self.isSilenced() {
                self.write(.pong, to: message.sourceID, from: message.destinationID, context: context)
            }
        case .pong:
            self.logger.trace("PONG received", metadata: ["cast.source": "\(message.sourceID)"])
        case nil:
            self.logger.debug("dropping an unknown heartbeat message", metadata: ["cast.source": "\(message.sourceID)"])
        }
    }

    private func start(context: ChannelHandlerContext) {
        guard self.monitor == nil else { return }
        self.monitor = HeartbeatMonitor(configuration: self.configuration, now: context.eventLoop.now)
        self.reschedule(context: context)
    }

    private func reschedule(context: ChannelHandlerContext) {
        guard let deadline = self.monitor?.nextDeadline else { return }
        self.timer?.cancel()
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        self.timer = context.eventLoop.scheduleTask(deadline: deadline) {
            let (handler, context) = loopBound.value
            handler.tick(context: context)
        }
    }

    private func tick(context: ChannelHandlerContext) {
        guard var monitor = self.monitor else { return }
        let action = monitor.tick(at: context.eventLoop.now)
        self.monitor = monitor
        switch action {
        case .wait:
            break
        case .sendPing:
            if !self.isSilenced() {
                self.logger.trace(
                    "sending PING after inbound silence", metadata: ["cast.destination": "\(self.peerID)"])
                self.write(.ping, to: self.peerID, from: self.localID, context: context)
            }
        case .declareDead:
            self.logger.debug("peer silent for the whole heartbeat timeout; closing")
            self.timer = nil
            context.fireErrorCaught(
                CastTransportError(
                    .heartbeatTimedOut,
                    "no message from the peer for \(self.configuration.timeout)"
                )
            )
            context.close(promise: nil)
            return
        }
        self.reschedule(context: context)
    }

    private func write(
        _ heartbeat: HeartbeatMessage,
        to destinationID: String,
        from sourceID: String,
        context: ChannelHandlerContext
    ) {
        let message = heartbeat.message(from: sourceID, to: destinationID)
        guard let frame = try? CastMessageFramer.frame(message, allocator: context.channel.allocator) else {
            self.logger.debug("cannot frame a heartbeat reply", metadata: ["cast.destination": "\(destinationID)"])
            return
        }
        context.writeAndFlush(Self.wrapOutboundOut(frame), promise: nil)
    }
}
