import Foundation

/// The connection namespace's messages (Docs/spec/castv2-control.md §3):
/// CONNECT with who the sender is, and CLOSE with an optional reason code.
@_spi(Receiver) public enum ConnectionMessage: Sendable, Hashable {
    /// Opens a virtual connection.
    case connect(type: VirtualConnectionType, sender: SenderInfo)
    /// Closes a virtual connection.
    case close(reason: VirtualConnectionCloseReason?)

    /// `senderInfo.sdkType`: 2 is the value Chrome's sender sends.
    static let sdkType = 2
    /// `senderInfo.platform`: 6 is Linux.
    static let linuxPlatform = 6
    /// `senderInfo.connectionType`: 1, as Chrome sends.
    static let connectionType = 1
    /// CastV2 protocol versions 2.1.0 to 2.1.3 (Open Screen cast_channel.proto `ProtocolVersion`).
    static let protocolVersions = [0, 1, 2, 3]

    private struct Connect: Codable {
        struct Info: Codable {
            var sdkType: Int
            var version: String
            var browserVersion: String
            var platform: Int
            var connectionType: Int
            var systemVersion: String
        }
        var type = "CONNECT"
        var userAgent: String
        var connType: Int
        var origin: [String: String] = [:]
        var senderInfo: Info
        /// The protocol versions this sender speaks, as Open Screen's sender
        /// sends them (sender/channel/message_util.cc:117-120); its receiver
        /// answers CONNECTED only when they are there
        /// (connection_namespace_handler.cc:224-229). Chrome leaves it out.
        var protocolVersionList: [Int]? = ConnectionMessage.protocolVersions
    }

    private struct Close: Codable {
        var type = "CLOSE"
        var reasonCode: Int?
    }

    /// The JSON text.
    @_spi(Receiver) public func text() throws(CastTransportError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        do {
            switch self {
            case .connect(let type, let sender):
                let info = Connect.Info(
                    sdkType: Self.sdkType,
                    version: sender.version,
                    browserVersion: sender.version,
                    platform: Self.linuxPlatform,
                    connectionType: Self.connectionType,
                    systemVersion: sender.systemVersion
                )
                let connect = Connect(userAgent: sender.userAgent, connType: type.rawValue, senderInfo: info)
                return String(decoding: try encoder.encode(connect), as: UTF8.self)
            case .close(let reason):
                return String(decoding: try encoder.encode(Close(reasonCode: reason?.rawValue)), as: UTF8.self)
            }
        } catch {
            throw CastTransportError(.invalidMessage, "a connection message does not encode", cause: error)
        }
    }

    /// Reads a connection-namespace JSON text; `nil` for anything else.
    @_spi(Receiver) public init?(text: String) {
        let data = Data(text.utf8)
        switch ControlMessageType(text: text)?.type {
        case "CONNECT":
            guard let connect = try? JSONDecoder().decode(Connect.self, from: data) else {
                // Receivers accept a bare CONNECT; so does this reader.
                self = .connect(type: .strong, sender: SenderInfo(userAgent: "", version: "", systemVersion: ""))
                return
            }
            let sender = SenderInfo(
                userAgent: connect.userAgent,
                version: connect.senderInfo.version,
                systemVersion: connect.senderInfo.systemVersion
            )
            self = .connect(type: VirtualConnectionType(rawValue: connect.connType) ?? .strong, sender: sender)
        case "CLOSE":
            let close = try? JSONDecoder().decode(Close.self, from: data)
            self = .close(reason: close?.reasonCode.map { VirtualConnectionCloseReason(rawValue: $0) ?? .unknown })
        default:
            return nil
        }
    }
}
