import CastTestSupport
import NIOCore
import NIOEmbedded
import NIOTestUtils
import Testing

@_spi(Receiver) @testable import CastTransport

@Suite(.timeLimit(.minutes(3))) struct CastMessageDecoderTests {
    static func messages(_ count: Int) -> [CastMessage] {
        (0..<count).map { index in
            CastMessage(
                namespace: "urn:x-cast:com.google.cast.receiver",
                sourceID: "receiver-0",
                destinationID: "sender-\(index)",
                payload: index.isMultiple(of: 3)
                    ? .binary((0..<(index * 37 % 500)).map { UInt8(truncatingIfNeeded: $0) })
                    : .string(#"{"type":"RECEIVER_STATUS","requestId":\#(index)}"#)
            )
        }
    }

    @Test func decodesAcrossRandomReadSplits() throws {
        let messages = Self.messages(40)
        var stream = ByteBuffer()
        for message in messages {
            var frame = try CastMessageFramer.frame(message)
            stream.writeBuffer(&frame)
        }
        var generator = SplitMix64(seed: 11)
        for _ in 0..<20 {
            let channel = EmbeddedChannel(handler: ByteToMessageHandler(CastMessageDecoder()))
            var remaining = stream
            while remaining.readableBytes > 0 {
                let size = min(remaining.readableBytes, Int.random(in: 1...300, using: &generator))
                try channel.writeInbound(remaining.readSlice(length: size)!)
            }
            var decoded: [CastMessage] = []
            while let message = try channel.readInbound(as: CastMessage.self) {
                decoded.append(message)
            }
            #expect(decoded == messages)
            #expect(try channel.finish().isClean)
        }
    }

    @Test func decodesManyFramesInOneRead() throws {
        let messages = Self.messages(25)
        var stream = ByteBuffer()
        for message in messages {
            var frame = try CastMessageFramer.frame(message)
            stream.writeBuffer(&frame)
        }
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(CastMessageDecoder()))
        try channel.writeInbound(stream)
        var decoded: [CastMessage] = []
        while let message = try channel.readInbound(as: CastMessage.self) {
            decoded.append(message)
        }
        #expect(decoded == messages)
    }

    @Test func passesNIOsDecoderVerifier() throws {
        let pairs = try Self.messages(6).map { (try CastMessageFramer.frame($0), [$0]) }
        try ByteToMessageDecoderVerifier.verifyDecoder(inputOutputPairs: pairs) { CastMessageDecoder() }
    }

    @Test func throwsTheTypedErrorIntoThePipeline() throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(CastMessageDecoder()))
        #expect {
            try channel.writeInbound(ByteBuffer(bytes: [0x00, 0x01, 0x00, 0x01, 0x00]))
        } throws: { error in
            (error as? CastTransportError)?.code == .frameTooLarge
        }
    }
}
