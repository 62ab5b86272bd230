import Foundation
import Testing

@_spi(Receiver) @testable import CastTransport

@Suite(.timeLimit(.minutes(3))) struct ConnectionMessageTests {
    @Test func connectCarriesTheSendersIdentityForLinux() throws {
        let sender = SenderInfo(userAgent: "agent/1", version: "1.2.3", systemVersion: "Linux x86_64")
        let text = try ConnectionMessage.connect(type: .invisible, sender: sender).text()
        let json = try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(json["type"] as? String == "CONNECT")
        #expect(json["userAgent"] as? String == "agent/1")
        #expect(json["connType"] as? Int == 2)
        #expect((json["origin"] as? [String: Any])?.isEmpty == true)
        let info = try #require(json["senderInfo"] as? [String: Any])
        #expect(info["platform"] as? Int == 6)
        #expect(info["sdkType"] as? Int == 2)
        #expect(info["version"] as? String == "1.2.3")
        #expect(info["systemVersion"] as? String == "Linux x86_64")
        #expect(ConnectionMessage(text: text) == .connect(type: .invisible, sender: sender))
    }

    @Test func closeReadsEveryReasonCodeAndToleratesNone() throws {
        #expect(ConnectionMessage(text: #"{"type":"CLOSE"}"#) == .close(reason: nil))
        for reason in [VirtualConnectionCloseReason.transportClosed, .tooLongInactive, .closedByPeer] {
            let text = try ConnectionMessage.close(reason: reason).text()
            #expect(ConnectionMessage(text: text) == .close(reason: reason))
        }
        #expect(ConnectionMessage(text: #"{"type":"CLOSE","reasonCode":99}"#) == .close(reason: .unknown))
        #expect(ConnectionMessage(text: #"{"type":"PING"}"#) == nil)
        #expect(ConnectionMessage(text: "not json") == nil)
    }
}
