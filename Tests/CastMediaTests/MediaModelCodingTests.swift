import CastChannels
import CastMedia
import Foundation
import Testing

/// JSON text of `value` with sorted keys, as the wire comparison baseline.
func wireText(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

/// `text` re-encoded with sorted keys, to compare with ``wireText(_:)``.
func canonical(_ text: String) throws -> String {
    try JSONValue(parsing: text).jsonText()
}

@Suite(.timeLimit(.minutes(3))) struct MediaModelCodingTests {
    @Test func mediaInformationHasTheWireShape() throws {
        var metadata = MediaMetadata(
            type: .movie, images: [MediaImage(url: "https://x/p.jpg", width: 480, height: 360)])
        metadata.setString("Big Buck Bunny", forKey: .title)
        metadata.setString("Blender", forKey: .studio)
        metadata.setInteger(2008, forKey: "year")
        var style = TextTrackStyle()
        style.foregroundColor = CastColor(cssString: "#FFFF00FF")
        style.edgeType = .dropShadow
        style.fontScale = 1.5
        let media = MediaInformation(
            contentID: "https://x/bbb.mp4", streamType: .buffered, contentType: "video/mp4", metadata: metadata,
            duration: 596.5,
            tracks: [
                MediaTrack(
                    trackID: 1, kind: .text, subtype: .subtitles, contentID: "https://x/en.vtt",
                    contentType: "text/vtt",
                    language: "en-US", name: "English")
            ],
            textTrackStyle: style,
            breaks: [AdBreakInfo(id: "b0", breakClipIDs: ["bc0"], position: 0)],
            breakClips: [
                AdBreakClipInfo(id: "bc0", title: "Ad", contentURL: "https://x/ad.mp4", duration: 30, whenSkippable: 5)
            ]
        )
        let expected = try canonical(
            """
            {"contentId":"https://x/bbb.mp4","streamType":"BUFFERED","contentType":"video/mp4","duration":596.5,
             "metadata":{"metadataType":1,"title":"Big Buck Bunny","studio":"Blender","year":2008,
                         "images":[{"url":"https://x/p.jpg","width":480,"height":360}]},
             "tracks":[{"trackId":1,"type":"TEXT","subtype":"SUBTITLES","trackContentId":"https://x/en.vtt",
                        "trackContentType":"text/vtt","language":"en-US","name":"English"}],
             "textTrackStyle":{"foregroundColor":"#FFFF00FF","edgeType":"DROP_SHADOW","fontScale":1.5},
             "breaks":[{"id":"b0","breakClipIds":["bc0"],"position":0,"isWatched":false}],
             "breakClips":[{"id":"bc0","title":"Ad","contentUrl":"https://x/ad.mp4","duration":30,"whenSkippable":5}]}
            """)
        #expect(try wireText(media) == expected)
        let decoded = try JSONDecoder().decode(MediaInformation.self, from: Data(expected.utf8))
        #expect(decoded == media)
        #expect(decoded.metadata?.integer(forKey: "year") == 2008)
    }

    @Test func coloursParseFromCSSAndPrintAsRRGGBBAA() throws {
        #expect(CastColor(cssString: "#11223344") == CastColor(red: 0x11, green: 0x22, blue: 0x33, alpha: 0x44))
        #expect(CastColor(cssString: "#112233")?.alpha == 0xFF)
        #expect(CastColor(cssString: "#0a0B0c0D")?.description == "#0A0B0C0D")
        for bad in ["", "112233", "#12345", "#GG0000FF", "#1122334455"] {
            #expect(CastColor(cssString: bad) == nil)
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(TextTrackStyle.self, from: Data(#"{"foregroundColor":"red"}"#.utf8))
        }
    }

    @Test func theDefaultTextStyleIsTheSDKs() throws {
        let expected = try canonical(
            """
            {"foregroundColor":"#FFFFFFFF","backgroundColor":"#000000FF","edgeType":"NONE","fontScale":1,
             "fontGenericFamily":"SANS_SERIF","fontStyle":"NORMAL","windowType":"NONE"}
            """)
        #expect(try wireText(TextTrackStyle.sdkDefault) == expected)
        // Without a caption file of the user's, the default is the SDK's.
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("cast-\(UUID().uuidString)")
        #expect(TextTrackStyle.createDefault(environment: ["XDG_CONFIG_HOME": empty.path]) == .sdkDefault)
    }

    /// Seed 003: the default style comes from the user's caption settings; on Linux, the caption file.
    @Test func theDefaultTextStyleTakesTheUsersCaptionFile() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("cast-\(UUID().uuidString)")
        let environment = ["XDG_CONFIG_HOME": home.path]
        let file = TextTrackStyle.userStyleFile(environment: environment)
        #expect(file.path == home.path + "/cast/captions.json")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(##"{"foregroundColor":"#FFFF00FF","fontScale":1.5,"edgeType":"OUTLINE"}"##.utf8).write(to: file)
        let style = TextTrackStyle.createDefault(environment: environment)
        #expect(style.foregroundColor == CastColor(red: 255, green: 255, blue: 0))
        #expect(style.fontScale == 1.5)
        #expect(style.edgeType == .outline)
        #expect(style.backgroundColor == TextTrackStyle.sdkDefault.backgroundColor)
        #expect(style.fontGenericFamily == .sansSerif)

        for garbage in ["not json", "[1,2]", #"{"fontScale":"big"}"#, String(repeating: " ", count: 70_000) + "{}"] {
            try Data(garbage.utf8).write(to: file)
            #expect(TextTrackStyle.createDefault(environment: environment) == .sdkDefault)
        }
    }

    @Test func queueItemsUseTheProtocolsDefaults() throws {
        let item = try JSONDecoder().decode(
            MediaQueueItem.self, from: Data(#"{"itemId":3,"media":{"contentId":"a"}}"#.utf8))
        #expect(item.itemID == 3)
        #expect(item.autoplay)
        #expect(item.startTime == 0)
        #expect(item.media?.streamType == MediaStreamType.none)
        let written = MediaQueueItem(
            media: MediaInformation(contentID: "b", contentType: "audio/mp3"), activeTrackIDs: [2])
        #expect(
            try wireText(written)
                == canonical(
                    #"{"media":{"contentId":"b","contentType":"audio/mp3","streamType":"BUFFERED"},"autoplay":true,"startTime":0,"preloadTime":0,"activeTrackIds":[2]}"#
                ))
    }

    @Test func unknownWireValuesStillDecode() throws {
        let status = try JSONDecoder().decode(
            MediaStatus.self,
            from: Data(
                #"{"mediaSessionId":1,"playerState":"DANCING","idleReason":"BORED","repeatMode":"REPEAT_NEVER","videoInfo":{"width":3840,"height":2160,"hdrType":"hdr10plus"}}"#
                    .utf8))
        #expect(status.playerState.rawValue == "DANCING")
        #expect(status.idleReason?.rawValue == "BORED")
        #expect(status.repeatMode?.rawValue == "REPEAT_NEVER")
        #expect(
            status.videoInfo == VideoInfo(width: 3840, height: 2160, hdrType: VideoInfo.HDRType(rawValue: "hdr10plus")))
    }

    @Test func supportedCommandsHaveEveryBit() {
        let all: [SupportedMediaCommands] = [
            .pause, .seek, .streamVolume, .streamMute, .skipForward, .skipBackward, .queueNext, .queuePrevious,
            .queueShuffle, .skipAd, .queueRepeatAll, .queueRepeatOne, .editTracks, .playbackRate, .like, .dislike,
            .follow, .unfollow, .streamTransfer,
        ]
        #expect(all.map(\.rawValue) == (0...18).map { 1 << $0 })
        #expect(SupportedMediaCommands(rawValue: 15) == [.pause, .seek, .streamVolume, .streamMute])
    }
}
