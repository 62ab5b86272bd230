@_spi(Receiver) public import CastTransport

/// A scripted receiver app's answer for tests: `message` back to its sender,
/// text as `echo:<text>`, binary reversed.
public func echoReplies(to message: CastMessage) -> [CastMessage] {
    let payload: CastMessage.Payload =
        switch message.payload {
        case .string(let text): .string("echo:\(text)")
        case .binary(let bytes): .binary(bytes.reversed())
        }
    return [
        CastMessage(
            namespace: message.namespace, sourceID: message.destinationID, destinationID: message.sourceID,
            payload: payload)
    ]
}
