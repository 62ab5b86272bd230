import Foundation

/// Conversion between ``CastMessage`` and the generated protobuf type.
extension CastMessage {
    /// Builds a message from its decoded protobuf form, checking the rules of
    /// Docs/spec/castv2-control.md §2: non-empty namespace, source and
    /// destination, and the payload field that `payload_type` names.
    init(wire: Cast_Channel_CastMessage) throws(CastTransportError) {
        guard !wire.namespace.isEmpty, !wire.sourceID.isEmpty, !wire.destinationID.isEmpty else {
            throw CastTransportError(.malformedMessage, "a namespace, source or destination id is empty")
        }
        switch wire.payloadType {
        case .string:
            guard wire.hasPayloadUtf8 else {
                throw CastTransportError(.malformedMessage, "a STRING message has no payload_utf8")
            }
            self.payload = .string(wire.payloadUtf8)
        case .binary:
            guard wire.hasPayloadBinary else {
                throw CastTransportError(.malformedMessage, "a BINARY message has no payload_binary")
            }
            self.payload = .binary(Array(wire.payloadBinary))
        }
        self.namespace = wire.namespace
        self.sourceID = wire.sourceID
        self.destinationID = wire.destinationID
    }

    /// The protobuf form, always with `protocol_version = CASTV2_1_0`.
    var wire: Cast_Channel_CastMessage {
        var wire = Cast_Channel_CastMessage()
        wire.protocolVersion = .castv210
        wire.namespace = self.namespace
        wire.sourceID = self.sourceID
        wire.destinationID = self.destinationID
        switch self.payload {
        case .string(let text):
            wire.payloadType = .string
            wire.payloadUtf8 = text
        case .binary(let bytes):
            wire.payloadType = .binary
            wire.payloadBinary = Data(bytes)
        }
        return wire
    }
}
