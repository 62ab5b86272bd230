import CastEmulator
import CastTestSupport
import Foundation
import Testing

@_spi(Receiver) @testable import CastTransport

/// Virtual connections and routing against the emulator's platform rules.
@Suite(.timeLimit(.minutes(3))) struct VirtualConnectionTests {
    static let receiverNamespace = "urn:x-cast:com.google.cast.receiver"

    @Test func theReceiverDropsMessagesWithoutAVirtualConnection() async throws {
        try await EmulatorFixture.with { fixture in
            let connection = fixture.connection()
            try await connection.connect()
            let events = fixture.emulator.events()
            try await connection.send(
                namespace: Self.receiverNamespace, to: "receiver-0", text: #"{"type":"GET_STATUS","requestId":1}"#)
            let dropped = await first(events) {
                if case .messageDropped = $0 { return true }
                if case .messageReceived = $0 { return true }
                return false
            }
            guard case .messageDropped(_, let message) = dropped else {
                Issue.record("expected a drop, saw \(String(describing: dropped))")
                return
            }
            #expect(message.sourceID == connection.senderID)

            try await connection.openVirtualConnection(to: "receiver-0")
            try await connection.send(
                namespace: Self.receiverNamespace, to: "receiver-0", text: #"{"type":"GET_STATUS","requestId":2}"#)
            let received = await first(events) {
                if case .messageReceived(_, let message) = $0 { return message.namespace == Self.receiverNamespace }
                if case .messageDropped = $0 { return true }
                return false
            }
            guard case .messageReceived(_, let delivered) = received else {
                Issue.record("expected delivery, saw \(String(describing: received))")
                return
            }
            #expect(delivered.text == #"{"type":"GET_STATUS","requestId":2}"#)
            await connection.close()
        }
    }

    @Test func connectSendsTheSenderInfoOnTheWire() async throws {
        try await EmulatorFixture.with { fixture in
            let events = fixture.emulator.events()
            let connection = fixture.connection(
                CastConnectionConfiguration(
                    deviceAuthentication: .off, sender: SenderInfo(userAgent: "tests/1", version: "9.9"))
            )
            try await connection.connect()
            try await connection.openVirtualConnection(to: "app-transport-1", type: .invisible)
            let connect = await first(events) {
                if case .messageReceived(_, let message) = $0 {
                    return message.namespace == TransportNamespace.connection
                }
                return false
            }
            guard case .messageReceived(_, let message) = connect, let text = message.text else {
                Issue.record("no CONNECT observed")
                return
            }
            #expect(message.sourceID == connection.senderID)
            #expect(message.destinationID == "app-transport-1")
            let json = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            #expect(json["type"] as? String == "CONNECT")
            #expect(json["userAgent"] as? String == "tests/1")
            #expect(json["connType"] as? Int == 2)
            #expect((json["senderInfo"] as? [String: Any])?["platform"] as? Int == 6)
            await connection.close()
        }
    }

    @Test func aCloseFromTheReceiverIsAnEventOnThatVirtualConnection() async throws {
        try await EmulatorFixture.with { fixture in
            let connection = fixture.connection()
            try await connection.connect()
            let vcEvents = connection.virtualConnectionEvents()
            try await connection.openVirtualConnection(to: "receiver-0")
            try await connection.openVirtualConnection(to: "app-1")
            await fixture.emulator.closeVirtualConnection(from: "app-1", to: connection.senderID, reason: .closedByPeer)
            let closed = await first(vcEvents) {
                if case .closedByPeer = $0 { return true }
                return false
            }
            #expect(closed == .closedByPeer(destinationID: "app-1", reason: .closedByPeer))
            #expect(await connection.isVirtualConnectionOpen(to: "app-1") == false)
            #expect(await connection.isVirtualConnectionOpen(to: "receiver-0"))
            await connection.close()
        }
    }

    @Test func routesRepliesAndBroadcastsToEverySubscriber() async throws {
        try await EmulatorFixture.with { fixture in
            let connection = fixture.connection()
            try await connection.connect()
            let mine = connection.messages(namespace: Self.receiverNamespace, to: connection.senderID)
            let all = connection.messages(namespace: Self.receiverNamespace)
            let direct = CastMessage(
                namespace: Self.receiverNamespace,
                sourceID: "receiver-0",
                destinationID: connection.senderID,
                payload: .string(#"{"type":"RECEIVER_STATUS","requestId":1}"#)
            )
            let elsewhere = CastMessage(
                namespace: Self.receiverNamespace,
                sourceID: "receiver-0",
                destinationID: "sender-somebody-else",
                payload: .string(#"{"type":"RECEIVER_STATUS","requestId":5}"#)
            )
            let broadcast = CastMessage(
                namespace: Self.receiverNamespace,
                sourceID: "receiver-0",
                destinationID: "*",
                payload: .string(#"{"type":"RECEIVER_STATUS","requestId":0}"#)
            )
            await fixture.emulator.send(direct)
            await fixture.emulator.send(elsewhere)
            await fixture.emulator.send(broadcast)
            await fixture.emulator.stop()
            #expect(await disconnectReason(of: connection) == .closedByPeer)
            #expect(await Array(mine) == [direct, broadcast])
            #expect(await Array(all) == [direct, elsewhere, broadcast])
        }
    }
}

/// The emulator's scripted receiver-app hook.
@Suite(.timeLimit(.minutes(3))) struct EmulatorResponderTests {
    @Test func aResponderAnswersOnlyThroughAVirtualConnection() async throws {
        try await EmulatorFixture.with { fixture in
            let namespace = "urn:x-cast:com.example.echo"
            fixture.emulator.respond(to: namespace) { message in
                [
                    CastMessage(
                        namespace: message.namespace,
                        sourceID: message.destinationID,
                        destinationID: message.sourceID,
                        payload: message.payload
                    )
                ]
            }
            let connection = fixture.connection()
            try await connection.connect()
            let replies = connection.messages(namespace: namespace, from: "echo-app")
            try await connection.send(namespace: namespace, to: "echo-app", text: #"{"n":1}"#)
            try await connection.openVirtualConnection(to: "echo-app")
            try await connection.send(namespace: namespace, to: "echo-app", text: #"{"n":2}"#)
            let reply = await first(replies) { _ in true }
            #expect(reply?.text == #"{"n":2}"#)
            #expect(reply?.destinationID == connection.senderID)
            await connection.close()
        }
    }
}
