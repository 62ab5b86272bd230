import CastTestSupport
import NIOCore
import SwiftProtobuf
import Testing

@_spi(Receiver) @testable import CastTransport

@Suite(.timeLimit(.minutes(3))) struct CastMessageFramerTests {
    static let status = CastMessage(
        namespace: "urn:x-cast:com.google.cast.media",
        sourceID: "receiver-0",
        destinationID: "sender-42",
        payload: .string(#"{"type":"MEDIA_STATUS","requestId":0,"status":[]}"#)
    )

    @Test func framesToTheDocumentedBytes() throws {
        let message = CastMessage(namespace: "n", sourceID: "s", destinationID: "d", payload: .string("{}"))
        let frame = try CastMessageFramer.frame(message)
        let expected: [UInt8] = [
            0x00, 0x00, 0x00, 0x11,  // length prefix: 17 body bytes, big-endian
            0x08, 0x00,  // field 1 protocol_version (varint) = CASTV2_1_0
            0x12, 0x01, 0x73,  // field 2 source_id = "s"
            0x1A, 0x01, 0x64,  // field 3 destination_id = "d"
            0x22, 0x01, 0x6E,  // field 4 namespace = "n"
            0x28, 0x00,  // field 5 payload_type (varint) = STRING
            0x32, 0x02, 0x7B, 0x7D,  // field 6 payload_utf8 = "{}"
        ]
        #expect(Array(frame.readableBytesView) == expected)
    }

    @Test func roundTripsTextAndBinary() throws {
        let binary = CastMessage(
            namespace: "urn:x-cast:com.google.cast.tp.deviceauth",
            sourceID: "sender-0",
            destinationID: "receiver-0",
            payload: .binary([0, 1, 2, 0xFF])
        )
        for message in [Self.status, binary] {
            var buffer = try CastMessageFramer.frame(message)
            #expect(try CastMessageFramer.nextMessage(from: &buffer) == message)
            #expect(buffer.readableBytes == 0)
        }
    }

    @Test func waitsForAWholeFrameWithoutConsuming() throws {
        let frame = try CastMessageFramer.frame(Self.status)
        for cut in [0, 3, 4, frame.readableBytes - 1] {
            var partial = frame.getSlice(at: 0, length: cut)!
            #expect(try CastMessageFramer.nextMessage(from: &partial) == nil)
            #expect(partial.readableBytes == cut)
        }
    }

    @Test func rejectsZeroLengthAndOversizedPrefixes() async {
        var zero = ByteBuffer(bytes: [0, 0, 0, 0])
        #expect(await transportErrorCode { _ = try CastMessageFramer.nextMessage(from: &zero) } == .emptyFrame)
        #expect(zero.readableBytes == 4)

        var oversized = ByteBuffer(bytes: [0x00, 0x01, 0x00, 0x01])  // 65537
        #expect(await transportErrorCode { _ = try CastMessageFramer.nextMessage(from: &oversized) } == .frameTooLarge)
    }

    @Test func acceptsExactlyTheLimitAndRejectsOneMoreOnSend() async throws {
        // Grow a binary payload until the body is exactly 65536 bytes.
        var message = CastMessage(namespace: "n", sourceID: "s", destinationID: "d", payload: .binary([]))
        var payloadSize = 65_536 - 20
        while true {
            message.payload = .binary([UInt8](repeating: 7, count: payloadSize))
            let size = (try message.wire.serializedBytes() as [UInt8]).count
            if size == 65_536 { break }
            payloadSize += 65_536 - size
        }
        var frame = try CastMessageFramer.frame(message)
        #expect(frame.getInteger(at: 0, as: UInt32.self) == 65_536)
        #expect(try CastMessageFramer.nextMessage(from: &frame) == message)

        message.payload = .binary([UInt8](repeating: 7, count: payloadSize + 1))
        #expect(await transportErrorCode { _ = try CastMessageFramer.frame(message) } == .messageTooLarge)
    }

    @Test func rejectsEmptyIdsOnSend() async {
        let message = CastMessage(namespace: "", sourceID: "s", destinationID: "d", payload: .string("{}"))
        #expect(await transportErrorCode { _ = try CastMessageFramer.frame(message) } == .invalidMessage)
    }

    @Test func rejectsBodiesThatAreNotValidCastMessages() async throws {
        var garbage = ByteBuffer(bytes: [0, 0, 0, 8] + [UInt8](repeating: 0xFF, count: 8))
        #expect(await transportErrorCode { _ = try CastMessageFramer.nextMessage(from: &garbage) } == .malformedMessage)

        var missingPayload = Cast_Channel_CastMessage()
        missingPayload.protocolVersion = .castv210
        missingPayload.sourceID = "s"
        missingPayload.destinationID = "d"
        missingPayload.namespace = "n"
        missingPayload.payloadType = .string
        var buffer = try Self.framed(missingPayload)
        #expect(await transportErrorCode { _ = try CastMessageFramer.nextMessage(from: &buffer) } == .malformedMessage)

        var missingRequired = Cast_Channel_CastMessage()
        missingRequired.payloadType = .string
        missingRequired.payloadUtf8 = "{}"
        buffer = try Self.framed(missingRequired, partial: true)
        #expect(await transportErrorCode { _ = try CastMessageFramer.nextMessage(from: &buffer) } == .malformedMessage)
    }

    @Test func parsesAndIgnoresTheDeprecatedChunkingFields() throws {
        var wire = Self.status.wire
        wire.continued = true
        wire.remainingLength = 5
        var buffer = try Self.framed(wire)
        #expect(try CastMessageFramer.nextMessage(from: &buffer) == Self.status)
    }

    @Test func survivesRandomBytes() {
        var generator = SplitMix64(seed: 7)
        var outcomes = (messages: 0, incomplete: 0, errors: 0)
        for _ in 0..<5_000 {
            let count = Int.random(in: 0..<64, using: &generator)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if bytes.count >= 4 {
                // Keep most lengths small so bodies get parsed, not just rejected.
                bytes[0] = 0
                bytes[1] = 0
                bytes[2] = 0
            }
            var buffer = ByteBuffer(bytes: bytes)
            do {
                if try CastMessageFramer.nextMessage(from: &buffer) != nil {
                    outcomes.messages += 1
                } else {
                    outcomes.incomplete += 1
                }
            } catch {
                outcomes.errors += 1
                #expect(buffer.readableBytes == count)
            }
        }
        #expect(outcomes.errors > 0)
        #expect(outcomes.incomplete > 0)
    }

    static func framed(_ wire: Cast_Channel_CastMessage, partial: Bool = false) throws -> ByteBuffer {
        let body: [UInt8] = try wire.serializedBytes(partial: partial)
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt32(body.count))
        buffer.writeBytes(body)
        return buffer
    }
}
