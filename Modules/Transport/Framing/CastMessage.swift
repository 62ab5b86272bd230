import CastCommon

/// One control-channel message: a namespace, a source and destination
/// endpoint id, and a text (JSON) or binary payload.
///
/// The wire form is the `CastMessage` protobuf (Docs/spec/castv2-control.md
/// §2); this type is what the rest of the framework sees. The protocol
/// version is always `CASTV2_1_0` on send; deprecated chunking fields are
/// parsed and ignored.
public struct CastMessage: Sendable, Hashable {
    /// A message's payload.
    public enum Payload: Sendable, Hashable {
        /// UTF-8 text, almost always JSON (`payload_type = STRING`).
        case string(String)
        /// Raw bytes (`payload_type = BINARY`), e.g. device authentication.
        case binary([UInt8])
    }

    /// The namespace, e.g. `urn:x-cast:com.google.cast.receiver`.
    public var namespace: String
    /// The sending endpoint, e.g. `sender-12345` or `receiver-0`.
    public var sourceID: String
    /// The receiving endpoint; `*` is a broadcast.
    public var destinationID: String
    /// The payload.
    public var payload: Payload

    /// Creates a message.
    public init(namespace: String, sourceID: String, destinationID: String, payload: Payload) {
        self.namespace = namespace
        self.sourceID = sourceID
        self.destinationID = destinationID
        self.payload = payload
    }

    /// The text payload, or `nil` for a binary one.
    public var text: String? {
        if case .string(let text) = self.payload { return text }
        return nil
    }

    /// The binary payload, or `nil` for a text one.
    public var bytes: [UInt8]? {
        if case .binary(let bytes) = self.payload { return bytes }
        return nil
    }

    /// Whether the message is addressed to every endpoint (`*`).
    public var isBroadcast: Bool { self.destinationID == CastEndpointID.broadcast }
}
