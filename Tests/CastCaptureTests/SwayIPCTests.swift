import CastCapture
import Foundation
import Testing

/// sway's IPC as this module frames and reads it (sway-ipc(7)), checked
/// against replies sway 1.7 sent (the fuzz corpus's `sway-*` seeds,
/// recorded from a headless sway): the header's magic, length and type,
/// the outputs, a command's result and a refusal's reason; anything else
/// is a typed error, and a length past the bound is refused before it is read.
@Suite(.timeLimit(.minutes(1))) struct SwayIPCTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Fuzz/PortalReply/Corpus").standardized

    static func recorded(_ name: String) throws -> (header: [UInt8], payload: [UInt8]) {
        let bytes = [UInt8](try Data(contentsOf: Self.corpus.appendingPathComponent(name)))
        return (Array(bytes.prefix(SwayIPC.headerSize)), Array(bytes.dropFirst(SwayIPC.headerSize)))
    }

    @Test func aRequestIsTheMagicTheLengthTheTypeAndThePayload() {
        let bytes = SwayIPC.message(.runCommand, payload: "create_output")
        #expect(Array(bytes.prefix(6)) == Array("i3-ipc".utf8))
        #expect(Array(bytes[6..<14]) == [13, 0, 0, 0, 0, 0, 0, 0])
        #expect(Array(bytes.dropFirst(14)) == Array("create_output".utf8))
        #expect(Array(SwayIPC.message(.getOutputs, payload: "")[10..<14]) == [3, 0, 0, 0])
    }

    @Test func swaysRepliesReadAsOutputsAndResults() throws {
        let outputs = try Self.recorded("sway-get-outputs")
        #expect(try SwayIPC.payloadLength(ofHeader: outputs.header, answering: .getOutputs) == outputs.payload.count)
        #expect(try SwayIPC.outputs(inReply: outputs.payload) == [SwayIPC.Output(name: "HEADLESS-1", active: true)])

        let made = try Self.recorded("sway-run-command")
        #expect(try SwayIPC.payloadLength(ofHeader: made.header, answering: .runCommand) == made.payload.count)
        #expect(try SwayIPC.commandResults(inReply: made.payload).map(\.success) == [true])

        let refused = try SwayIPC.commandResults(inReply: Self.recorded("sway-refused-command").payload)
        #expect(refused.map(\.success) == [false])
        #expect(refused.first?.error == "Invalid output subcommand: unplug.")
    }

    @Test func whatIsNotSwaysReplyIsRefused() throws {
        let outputs = try Self.recorded("sway-get-outputs")
        // The answer to another request, a header that is not sway's, a length past the bound.
        #expect(throws: SwayIPCError.self) {
            try SwayIPC.payloadLength(ofHeader: outputs.header, answering: .runCommand)
        }
        #expect(throws: SwayIPCError.self) {
            try SwayIPC.payloadLength(
                ofHeader: Array("i3-ipX".utf8) + outputs.header.dropFirst(6), answering: .getOutputs)
        }
        #expect(throws: SwayIPCError.self) { try SwayIPC.payloadLength(ofHeader: [], answering: .getOutputs) }
        let huge = Array("i3-ipc".utf8) + [0, 0, 0, 0x7f] + [3, 0, 0, 0]
        #expect(throws: SwayIPCError.self) { try SwayIPC.payloadLength(ofHeader: huge, answering: .getOutputs) }
        #expect(throws: SwayIPCError.self) { try SwayIPC.outputs(inReply: Array("{\"name\": 1}".utf8)) }
        #expect(throws: SwayIPCError.self) {
            try SwayIPC.commandResults(inReply: outputs.payload.dropLast(3).map { $0 })
        }
    }
}
