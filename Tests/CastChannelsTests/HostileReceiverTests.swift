import CastChannels
import CastEmulator
import CastTestSupport
@_spi(Receiver) import CastTransport
import Testing

/// A receiver that answers with nonsense: wrong-typed and 30 000-deep JSON,
/// binary garbage and a flood in namespaces nobody listens to. The sender
/// drops what it cannot read, stays connected, and the request still ends —
/// with a typed timeout — instead of hanging or crashing.
@Suite(.timeLimit(.minutes(3))) struct HostileReceiverTests {
    static let deep = String(repeating: "[", count: 30_000) + String(repeating: "]", count: 30_000)

    @Test func nonsenseRepliesAreDroppedAndTheRequestEndsTyped() async throws {
        try await ChannelFixture.with(receiver: ReceiverChannel(requestTimeout: .seconds(1))) { fixture in
            fixture.emulator.respond(to: CastNamespace.receiver) { request in
                let id = (try? JSONValue(parsing: request.text ?? ""))?["requestId"] ?? 0
                let texts = [
                    Self.deep,
                    #"{"type":"RECEIVER_STATUS","requestId":"\#(id)","status":"garbage"}"#,
                    #"{"type":"RECEIVER_STATUS","requestId":\#((try? id.jsonText()) ?? "0"),"status":[1,2,3]}"#,
                    #"{"type":7,"requestId":{}}"#,
                    "\u{FFFD}\u{0}not json",
                ]
                var replies = texts.map { text in
                    CastMessage(
                        namespace: request.namespace, sourceID: request.destinationID,
                        destinationID: request.sourceID, payload: .string(text))
                }
                replies.append(
                    CastMessage(
                        namespace: request.namespace, sourceID: request.destinationID,
                        destinationID: request.sourceID, payload: .binary([0xFF, 0x00, 0x13, 0x37])))
                for index in 0..<2_000 {
                    replies.append(
                        CastMessage(
                            namespace: "urn:x-cast:com.example.flood\(index % 7)", sourceID: "web-9",
                            destinationID: request.sourceID, payload: .string(#"{"type":"NOISE"}"#)))
                }
                return replies
            }
            let error = await #expect(throws: CastChannelError.self) { try await fixture.receiver.requestStatus() }
            #expect(error?.code == .timedOut)
            #expect(fixture.receiver.status == nil)
            #expect(await fixture.connection.currentState.description == "connected")
            // The connection still works once the receiver behaves (a patient channel:
            // the flood may still be draining on a slow machine).
            fixture.emulator.respond(to: CastNamespace.receiver, with: nil)
            let patient = ReceiverChannel(requestTimeout: .seconds(30))
            patient.attach(to: fixture.connection, destinationID: "receiver-0")
            let status = try await patient.requestStatus()
            #expect(status.volume.level == 1)
            patient.detach()
        }
    }

    @Test func deepOrWrongTypedJSONIsRefusedByTheParsers() {
        #expect(throws: CastChannelError.self) { try JSONValue(parsing: Self.deep) }
        let receiver = ReceiverChannel()
        receiver.didReceiveTextMessage(Self.deep)
        receiver.didReceiveTextMessage(#"{"type":"RECEIVER_STATUS","status":{"applications":"x","volume":[]}}"#)
        #expect(receiver.status?.applications.isEmpty ?? true)
    }
}
