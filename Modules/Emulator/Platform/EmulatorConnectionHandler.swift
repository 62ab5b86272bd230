import CastChannels
import CastCommon
@_spi(Receiver) import CastTransport
import Logging
import NIOCore

/// The receiver platform's end of one sender socket: virtual connections
/// and the drop rule (Docs/spec/castv2-control.md §3: every non-`tp.*`
/// message without a virtual connection for its source and destination is
/// dropped), the device-auth responder, the receiver and multizone
/// and media namespaces (through the hub), scripted responders, and observation.
final class EmulatorConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = CastMessage
    typealias OutboundOut = ByteBuffer

    private let hub: EmulatorHub
    private let clock: EmulatorMediaClock
    private let responder: DeviceAuthResponder
    private let logger: Logger
    private var connectionID = 0

    init(hub: EmulatorHub, clock: EmulatorMediaClock, responder: DeviceAuthResponder, logger: Logger) {
        self.hub = hub
        self.clock = clock
        self.responder = responder
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.connectionID = self.hub.register(context.channel)
        self.hub.events.yield(.connectionOpened(connectionID: self.connectionID))
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.hub.unregister(self.connectionID)
        self.hub.events.yield(.connectionClosed(connectionID: self.connectionID))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.logger.debug(
            "closing a sender socket",
            metadata: ["cast.connection": "\(self.connectionID)", "cast.reason": "\(error)"]
        )
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let message = Self.unwrapInboundIn(data)
        switch message.namespace {
        case TransportNamespace.connection:
            self.handleConnectionMessage(message)
        case TransportNamespace.deviceAuth:
            self.hub.events.yield(.deviceAuthChallengeReceived(connectionID: self.connectionID))
            self.hub.events.yield(.messageReceived(connectionID: self.connectionID, message: message))
            if let reply = self.responder.reply(to: message, fault: self.hub.faults.deviceAuthentication) {
                self.hub.send(reply, toConnection: self.connectionID)
            }
            return
        default:
            break
        }
        let link = EmulatorHub.Link(senderID: message.sourceID, endpointID: message.destinationID)
        guard
            message.namespace.hasPrefix(TransportNamespace.platformPrefix)
                || self.hub.isOpen(link, connectionID: self.connectionID)
        else {
            self.logger.debug(
                "dropping a message without a virtual connection",
                metadata: [
                    "cast.namespace": "\(message.namespace)",
                    "cast.source": "\(message.sourceID)",
                    "cast.destination": "\(message.destinationID)",
                ]
            )
            self.hub.events.yield(.messageDropped(connectionID: self.connectionID, message: message))
            return
        }
        self.hub.events.yield(.messageReceived(connectionID: self.connectionID, message: message))
        if let responder = self.hub.responder(for: message.namespace) {
            for reply in responder(message) {
                self.hub.send(reply, toConnection: self.connectionID)
            }
        } else if message.destinationID == CastEndpointID.receiverPlatform,
            message.namespace == CastNamespace.receiver || message.namespace == CastNamespace.multizone
        {
            self.hub.handlePlatformRequest(message, connectionID: self.connectionID)
        } else if message.namespace == CastNamespace.media {
            self.hub.handleMediaRequest(message, connectionID: self.connectionID, clock: self.clock)
        } else if message.namespace == CastNamespace.webrtc {
            self.hub.handleStreamingMessage(message, connectionID: self.connectionID)
        }
    }

    /// The newest protocol version (0…3) a CONNECT names, if it names any.
    private static func protocolVersion(of message: CastMessage) -> Int? {
        guard let text = message.text, let json = try? JSONValue(parsing: text) else { return nil }
        let versions =
            json["protocolVersionList"]?.arrayValue?.compactMap(\.intValue)
            ?? json["protocolVersion"]?.intValue.map { [$0] } ?? []
        return versions.filter { (0...3).contains($0) }.max()
    }

    private func handleConnectionMessage(_ message: CastMessage) {
        let link = EmulatorHub.Link(senderID: message.sourceID, endpointID: message.destinationID)
        switch message.text.flatMap(ConnectionMessage.init(text:)) {
        case .connect(let type, _):
            guard self.hub.open(link, connectionID: self.connectionID) else {
                self.logger.debug("ignoring a CONNECT beyond the virtual-connection limit")
                return
            }
            self.hub.events.yield(
                .virtualConnectionOpened(
                    connectionID: self.connectionID,
                    sourceID: link.senderID,
                    destinationID: link.endpointID,
                    type: type
                )
            )
            if self.hub.profile.answersConnect, let version = Self.protocolVersion(of: message) {
                // Open Screen connection_namespace_handler.cc:224-229: CONNECTED
                // with the highest version both speak, only when the sender named one.
                let connected: JSONValue = ["type": "CONNECTED", "protocolVersion": .integer(version)]
                if let text = try? connected.jsonText() {
                    self.hub.send(
                        CastMessage(
                            namespace: TransportNamespace.connection, sourceID: link.endpointID,
                            destinationID: link.senderID, payload: .string(text)),
                        toConnection: self.connectionID)
                }
            }
        case .close:
            if self.hub.close(link, connectionID: self.connectionID) {
                self.hub.events.yield(
                    .virtualConnectionClosed(
                        connectionID: self.connectionID,
                        sourceID: link.senderID,
                        destinationID: link.endpointID
                    )
                )
            }
        case nil:
            self.logger.debug(
                "dropping an unknown connection message", metadata: ["cast.source": "\(message.sourceID)"])
        }
    }
}
