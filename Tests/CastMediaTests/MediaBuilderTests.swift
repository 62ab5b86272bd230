import CastChannels
import CastMedia
import Testing

/// The SDK-style builders produce the same values (and so the same wire JSON) as the initializers.
@Suite(.timeLimit(.minutes(3))) struct MediaBuilderTests {
    @Test func theSDKsAdBreakSampleBuildsTheExpectedMedia() throws {
        var clip = AdBreakClipInfoBuilder(adBreakClipID: "bc0")
        clip.title = "Clip title"
        clip.posterURL = "https://www.some.url"
        clip.duration = 60
        clip.whenSkippable = 5
        let adBreak = AdBreakInfoBuilder(adBreakID: "b0", adBreakClipIDs: ["bc0"]).build()
        var builder = MediaInformationBuilder(entity: "entity")
        builder.adBreaks = [adBreak]
        builder.adBreakClips = [clip.build()]
        var load = MediaLoadRequestDataBuilder()
        load.mediaInformation = builder.build()
        load.startTime = 12
        let data = load.build()

        #expect(data.currentTime == 12)
        #expect(data.autoplay)
        let media = try #require(data.mediaInformation)
        #expect(media.contentID == "entity")
        #expect(media.entity == "entity")
        #expect(media.breaks == [AdBreakInfo(id: "b0", breakClipIDs: ["bc0"], position: 0)])
        #expect(
            media.breakClips == [
                AdBreakClipInfo(
                    id: "bc0", title: "Clip title", posterURL: "https://www.some.url", duration: 60, whenSkippable: 5)
            ])
        #expect(
            try wireText(media.breakClips?.first)
                == canonical(
                    #"{"id":"bc0","title":"Clip title","posterUrl":"https://www.some.url","duration":60,"whenSkippable":5}"#
                ))
    }

    @Test func aURLBuilderUsesTheURLAsTheID() {
        var builder = MediaInformationBuilder(contentURL: "https://x/a.mp4")
        builder.contentType = "video/mp4"
        builder.streamDuration = 10
        #expect(
            builder.build()
                == MediaInformation(
                    contentID: "https://x/a.mp4", contentURL: "https://x/a.mp4", contentType: "video/mp4", duration: 10)
        )
        var item = MediaQueueItemBuilder()
        item.mediaInformation = builder.build()
        item.autoplay = false
        item.preloadTime = 20
        #expect(item.build() == MediaQueueItem(media: builder.build(), autoplay: false, preloadTime: 20))
    }
}
