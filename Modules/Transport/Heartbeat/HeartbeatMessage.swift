import Foundation

/// The heartbeat namespace's two messages (Docs/spec/castv2-control.md §4):
/// `{"type":"PING"}` and `{"type":"PONG"}`, no requestId.
package enum HeartbeatMessage: String {
    case ping = "PING"
    case pong = "PONG"

    /// The JSON text sent on the wire.
    package var text: String { #"{"type":""# + self.rawValue + #""}"# }

    /// Reads a heartbeat message's type; `nil` for anything else.
    ///
    /// The exact texts Chrome and receivers send (``text``) are matched
    /// without a JSON parse, which allocated about 15 times per message;
    /// any other spelling of the same JSON is parsed.
    package init?(text: String) {
        switch text {
        case Self.ping.text: self = .ping
        case Self.pong.text: self = .pong
        default:
            guard let type = ControlMessageType(text: text)?.type else { return nil }
            self.init(rawValue: type)
        }
    }

    /// The framed message from `sourceID` to `destinationID`.
    package func message(from sourceID: String, to destinationID: String) -> CastMessage {
        CastMessage(
            namespace: TransportNamespace.heartbeat,
            sourceID: sourceID,
            destinationID: destinationID,
            payload: .string(self.text)
        )
    }
}

/// The `type` field every control-channel JSON message carries.
package struct ControlMessageType: Decodable {
    /// The message type, e.g. `PING` or `CLOSE`.
    package var type: String

    /// Decodes the `type` of a JSON text, upper-cased (Open Screen and Chrome
    /// compare types without regard to case); `nil` when it is not JSON or has no string `type`.
    package init?(text: String) {
        guard var decoded = try? JSONDecoder().decode(Self.self, from: Data(text.utf8)) else { return nil }
        decoded.type = decoded.type.uppercased()
        self = decoded
    }
}
