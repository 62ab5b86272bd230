import CastCommon
public import Logging
public import NIOCore
import NIOTLS

/// Keeps a connection alive and detects a dead peer: answers PING with PONG,
/// sends PING after inbound silence, and closes the socket with
/// ``CastTransportError/Code/heartbeatTimedOut`` when the silence lasts the
/// whole timeout. Heartbeat messages stop here; everything else passes on.
///
/// Both sides use it, each with its own ``HeartbeatAddressing``: the sender
/// as Chrome (`sender-0` → `receiver-0` both ways), the emulator as the
/// receiver it plays. Decisions live in ``HeartbeatMonitor``; this handler
/// only feeds it and acts.
@_spi(Receiver) public final class HeartbeatHandler: ChannelInboundHandler {
    @_spi(Receiver) public typealias InboundIn = CastMessage
    @_spi(Receiver) public typealias InboundOut = CastMessage
    @_spi(Receiver) public typealias OutboundOut = ByteBuffer

    /// When the heartbeat starts.
    @_spi(Receiver) public enum Start: Sendable {
        /// Once TLS below has completed its handshake (a socket).
        case afterTLSHandshake
        /// As soon as the channel is active (an in-memory link, which has no TLS).
        case whenActive
    }

    private let configuration: HeartbeatConfiguration
    private let addressing: HeartbeatAddressing
    private let isSilenced: @Sendable () -> Bool
    private let start: Start
    private let logger: Logger
    private var monitor: HeartbeatMonitor?
    private var timer: Scheduled<Void>?

    /// Creates a handler.
    ///
    /// - Parameters:
    ///   - configuration: ping interval and timeout.
    ///   - addressing: the ids of this side's PINGs and PONGs.
    ///   - isSilenced: when it returns `true`, the handler neither answers nor
    ///     sends PINGs (a hung device; used by the emulator's fault knobs).
    ///   - start: when the heartbeat starts; after TLS's handshake by default.
    ///   - logger: where heartbeat events are logged, at trace level.
    @_spi(Receiver) public init(
        configuration: HeartbeatConfiguration,
        addressing: HeartbeatAddressing,
        isSilenced: @escaping @Sendable () -> Bool = { false },
        start: Start = .afterTLSHandshake,
        logger: Logger
    ) {
        self.configuration = configuration
        self.addressing = addressing
        self.isSilenced = isSilenced
        self.start = start
        self.logger = logger
    }

    /// The heartbeat starts once TLS is up: a slow handshake is the connect
    /// timeout's business, not the heartbeat's.
    @_spi(Receiver) public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event, self.start == .afterTLSHandshake {
            self.begin(context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    @_spi(Receiver) public func channelActive(context: ChannelHandlerContext) {
        if self.start == .whenActive {
            self.begin(context: context)
        }
        context.fireChannelActive()
    }

    @_spi(Receiver) public func channelInactive(context: ChannelHandlerContext) {
        self.timer?.cancel()
        self.timer = nil
        context.fireChannelInactive()
    }

    @_spi(Receiver) public func handlerRemoved(context: ChannelHandlerContext) {
        self.timer?.cancel()
        self.timer = nil
    }

    @_spi(Receiver) public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let message = Self.unwrapInboundIn(data)
        self.monitor?.inboundReceived(at: context.eventLoop.now)
        guard message.namespace == TransportNamespace.heartbeat else {
            context.fireChannelRead(data)
            return
        }
        switch message.text.flatMap(HeartbeatMessage.init(text:)) {
        case .ping:
            self.logger.trace("PING received", metadata: ["cast.source": "\(message.sourceID)"])
            if !self.isSilenced() {
                let (source, destination) =
                    self.addressing.pong ?? (message.destinationID, message.sourceID)
                self.write(.pong, to: destination, from: source, context: context)
            }
        case .pong:
            self.logger.trace("PONG received", metadata: ["cast.source": "\(message.sourceID)"])
        case nil:
            self.logger.debug("dropping an unknown heartbeat message", metadata: ["cast.source": "\(message.sourceID)"])
        }
    }

    private func begin(context: ChannelHandlerContext) {
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
            if !self.isSilenced(), let (source, destination) = self.addressing.ping {
                self.logger.trace(
                    "sending PING after inbound silence", metadata: ["cast.destination": "\(destination)"])
                self.write(.ping, to: destination, from: source, context: context)
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
        let written = context.eventLoop.makePromise(of: Void.self)
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        written.futureResult.whenSuccess {
            let (handler, context) = loopBound.value
            handler.monitor?.keepAliveWritten(at: context.eventLoop.now)
            handler.reschedule(context: context)
        }
        context.writeAndFlush(Self.wrapOutboundOut(frame), promise: written)
    }
}

/// Who a side's PINGs and PONGs come from and go to.
@_spi(Receiver) public struct HeartbeatAddressing: Sendable {
    /// The source and destination of the PINGs this side sends; `nil` when it sends none.
    @_spi(Receiver) public var ping: (source: String, destination: String)?
    /// The source and destination of its PONGs; `nil` answers from the
    /// PING's destination to its source (Open Screen's receiver,
    /// cast/receiver/application_agent.cc:137-139, :220-224).
    @_spi(Receiver) public var pong: (source: String, destination: String)?

    /// Creates an addressing.
    @_spi(Receiver) public init(
        ping: (source: String, destination: String)?, pong: (source: String, destination: String)?
    ) {
        self.ping = ping
        self.pong = pong
    }

    /// Chrome's: PING and PONG always `sender-0` → `receiver-0`, whatever the
    /// receiver's PINGs say (cast_message_util.cc `CreateKeepAliveMessage`;
    /// keep_alive_handler.cc builds its PONG once, with fixed ids).
    @_spi(Receiver) public static let sender = HeartbeatAddressing(
        ping: (CastEndpointID.senderPlatform, CastEndpointID.receiverPlatform),
        pong: (CastEndpointID.senderPlatform, CastEndpointID.receiverPlatform))
}
