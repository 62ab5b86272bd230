import CastKit
import CastMediaServer
import CastRemoteDisplay
import Testing

/// Every module's error says what kind of failure it is and one sentence
/// without the technical chain: what an app shows, and what `cast` turns
/// into its exit codes.
@Suite(.timeLimit(.minutes(1))) struct ErrorCategoryTests {
    @Test func eachErrorNamesItsKindOfFailure() {
        let cases: [(any CastCategorizedError, CastErrorCategory)] = [
            (DiscoveryError(.deviceNotFound, "no device named Kitchen answered"), .deviceNotFound),
            (DiscoveryError(.malformedAddress, "'1.2.3:x' is not an address"), .deviceNotFound),
            (DiscoveryError(.socketFailed, "no socket"), .other),
            (CastTransportError(.connectTimedOut, "cannot connect to 10.0.0.2:8009"), .timedOut),
            (CastTransportError(.tlsHandshakeFailed, "cannot connect to 10.0.0.2:8009"), .connectionFailed),
            (CastChannelError(.launchFailed, "the receiver would not launch X", reason: "NOT_FOUND"), .launchFailed),
            (CastChannelError(.noApplication, "no app is running on the receiver"), .launchFailed),
            (CastChannelError(.timedOut, "no reply"), .timedOut),
            (CastChannelError(.disconnected, "the connection ended"), .connectionFailed),
            (CastChannelError(.invalidNamespace, "not urn:x-cast:"), .other),
            (CastMediaError(.loadFailed, "the receiver could not load it"), .mediaFailed),
            (CastMediaError(.timedOut, "no reply"), .timedOut),
            (CastRemoteDisplayError(.offerRejected, "refused"), .offerRejected),
            (CastRemoteDisplayError(.noSoundOutput, "has no sound output"), .launchFailed),
            (CastRemoteDisplayError(.invalidFile, "not a Y4M file"), .invalidInput),
            (MediaServerError(.unreadableFile, "no such file"), .invalidInput),
            (MediaServerError(.bindFailed, "port in use"), .other),
            (PlaylistError.empty, .invalidInput),
            (SubtitleError.noCues, .invalidInput),
            (CastSessionError(.noAddress, "the device has no address"), .deviceNotFound),
            (CastSessionError(.reconnectFailed, "did not come back"), .connectionFailed),
        ]
        for (error, category) in cases {
            #expect(error.category == category, "\(error)")
            #expect(!error.userMessage.isEmpty)
        }
    }

    @Test func theSentenceLeavesTheChainToTheDescription() {
        let refused = CastChannelError(
            .launchFailed, "the receiver would not launch ABCD1234", reason: "NOT_FOUND",
            cause: CastTransportError(.closedByPeer, "closed"))
        #expect(refused.userMessage == "the receiver would not launch ABCD1234 (NOT_FOUND)")
        #expect(refused.description.contains("closedByPeer"))
        let session = CastSessionError(
            .connectionFailed, "cannot reach Kitchen", cause: CastTransportError(.connectTimedOut, "timed out"))
        #expect(session.userMessage == "cannot reach Kitchen: timed out")
        #expect(PlaylistError.unknownKind("txt").userMessage == "a playlist is .m3u, .m3u8 or .pls, not .txt")
    }
}
