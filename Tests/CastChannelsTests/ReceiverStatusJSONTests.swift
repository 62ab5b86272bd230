import CastChannels
import Foundation
import Testing

/// A status written as JSON is the RECEIVER_STATUS it was read from: what
/// an app forwards or stores reads back the same, for every real receiver's
/// status in the conformance corpus.
@Suite(.timeLimit(.minutes(1))) struct ReceiverStatusJSONTests {
    @Test func aFullStatusIsWrittenAsItWasRead() throws {
        let read = try JSONValue(parsing: ReceiverStatusDecodingTests.fullStatus)
        #expect(ReceiverStatus(json: read).json == read)
    }

    @Test func whatIsLeftOutStaysOut() throws {
        let status = ReceiverStatus(applications: [ReceiverApplication(appID: "E8C28D3C", isIdleScreen: true)])
        let json = status.json
        #expect(json["isStandBy"] == nil)
        #expect(json["volume"] == .object([:]))
        #expect(json["applications"]?.arrayValue?.first?["sessionId"] == nil)
        #expect(status.runningApplication == nil)
    }

    @Test(arguments: Self.corpus(matching: "receiver-status"))
    func everyRealReceiversStatusReadsBackTheSame(name: String) throws {
        let message = try JSONValue(
            parsing: try String(contentsOf: Self.corpusFolder.appending(path: name), encoding: .utf8))
        let status = ReceiverStatus(json: try #require(message["status"]))
        #expect(!status.applications.isEmpty || status.volume.level != nil, "\(name) read as nothing")
        #expect(ReceiverStatus(json: status.json) == status, "\(name)")
        #expect(ReceiverStatus(json: try JSONValue(parsing: try status.json.jsonText())) == status, "\(name)")
    }

    private static let corpusFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appending(path: "../Fuzz/StatusJSON/Corpus").standardized

    private static func corpus(matching kind: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: Self.corpusFolder.path)) ?? [])
            .filter { $0.contains(kind) }.sorted()
    }
}
