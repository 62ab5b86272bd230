import CastChannels
import CastMedia
import Testing

@Suite(.timeLimit(.minutes(10))) struct MediaStatusCacheTests {
    static let full: JSONValue = [
        "type": "MEDIA_STATUS", "requestId": 0,
        "status": [
            [
                "mediaSessionId": 1, "playbackRate": 1, "playerState": "PLAYING", "currentTime": 12.5,
                "supportedMediaCommands": 15, "volume": ["level": 1, "muted": false], "activeTrackIds": [1],
                "media": [
                    "contentId": "https://x/a.mp4", "contentType": "video/mp4", "streamType": "BUFFERED",
                    "duration": 60,
                ],
            ]
        ],
    ]

    @Test func partialUpdatesMergeIntoTheCachedStatus() throws {
        var cache = MediaStatusCache()
        let first = try #require(try cache.apply(Self.full))
        #expect(first.media?.contentID == "https://x/a.mp4")
        #expect(first.playerState == .playing)

        let update: JSONValue = [
            "type": "MEDIA_STATUS", "requestId": 4,
            "status": [["mediaSessionId": 1, "playerState": "PAUSED", "currentTime": 20, "supportedMediaCommands": 3]],
        ]
        let merged = try #require(try cache.apply(update))
        #expect(merged.playerState == .paused)
        #expect(merged.currentTime == 20)
        #expect(merged.media?.duration == 60)  // left out, kept
        #expect(merged.supportedMediaCommands == [.pause, .seek])
        #expect(merged.activeTrackIDs == [1])  // left out: unchanged
        #expect(merged.volume == StreamVolume(level: 1, muted: false))
        #expect(cache.status == merged)
    }

    /// Audit row 2: an update with only what changed keeps the player state
    /// and the supported commands (pychromecast media.py:307-337), so PAUSE
    /// and SEEK stay possible; before, they fell back to IDLE and none.
    @Test func anUpdateWithOnlyWhatChangedKeepsEveryOtherField() throws {
        var cache = MediaStatusCache()
        try cache.apply(Self.full)
        let merged = try #require(
            try cache.apply(["type": "MEDIA_STATUS", "status": [["mediaSessionId": 1, "currentTime": 30]]]))
        #expect(merged.playerState == .playing)
        #expect(merged.supportedMediaCommands == [.pause, .seek, .streamVolume, .streamMute])
        #expect(merged.currentTime == 30)
        #expect(merged.volume.level == 1)
        #expect(merged.playbackRate == 1)
        let noSessionID = try #require(try cache.apply(["status": [["volume": ["level": 0.5, "muted": false]]]]))
        #expect(noSessionID.mediaSessionID == 1)
        #expect(noSessionID.playerState == .playing)
        #expect(noSessionID.volume.level == 0.5)
    }

    @Test func aFieldSentAsNullIsCleared() throws {
        var cache = MediaStatusCache()
        try cache.apply(Self.full)
        let merged = try #require(try cache.apply(["status": [["mediaSessionId": 1, "activeTrackIds": .null]]]))
        #expect(merged.activeTrackIDs == nil)
        #expect(merged.media?.contentID == "https://x/a.mp4")
    }

    /// Conformance 037: some receiver apps put the status's fields at the top level.
    @Test func aStatusAtTheTopLevelIsRead() throws {
        var cache = MediaStatusCache()
        let status = try #require(
            try cache.apply([
                "type": "MEDIA_STATUS", "mediaSessionId": 0, "playerState": "IDLE", "currentTime": 0,
                "supportedMediaCommands": 0, "volume": [:],
            ]))
        #expect(status.mediaSessionID == 0)
        #expect(status.playerState == .idle)
    }

    @Test func aFirstStatusWithoutASessionIDIsRefused() {
        var cache = MediaStatusCache()
        #expect(throws: CastChannelError.self) {
            try cache.apply(["type": "MEDIA_STATUS", "status": [["playerState": "PLAYING"]]])
        }
        #expect(cache.status == nil)
    }

    @Test func fieldsWhoseAbsenceMeansNoneDoNotLinger() throws {
        var cache = MediaStatusCache()
        try cache.apply([
            "status": [
                [
                    "mediaSessionId": 3, "playerState": "IDLE", "idleReason": "FINISHED",
                    "breakStatus": ["breakId": "b", "breakClipId": "c"], "media": ["contentId": "x"],
                ]
            ]
        ])
        let playing = try #require(try cache.apply(["status": [["mediaSessionId": 3, "playerState": "PLAYING"]]]))
        #expect(playing.idleReason == nil)
        #expect(playing.breakStatus == nil)
        #expect(playing.media?.contentID == "x")
    }

    @Test func aNewMediaSessionStartsAfresh() throws {
        var cache = MediaStatusCache()
        try cache.apply(Self.full)
        let next = try #require(
            try cache.apply(["type": "MEDIA_STATUS", "status": [["mediaSessionId": 2, "playerState": "BUFFERING"]]]))
        #expect(next.mediaSessionID == 2)
        #expect(next.media == nil)
        #expect(next.activeTrackIDs == nil)
    }

    @Test func anEmptyStatusArrayMeansNoMediaSession() throws {
        var cache = MediaStatusCache()
        try cache.apply(Self.full)
        #expect(try cache.apply(["type": "MEDIA_STATUS", "status": []]) == nil)
        #expect(cache.status == nil)
    }

    @Test func aMalformedStatusIsRefusedAndLeavesTheCacheAlone() throws {
        var cache = MediaStatusCache()
        let before = try cache.apply(Self.full)
        for bad: JSONValue in [
            ["type": "MEDIA_STATUS"],
            ["type": "MEDIA_STATUS", "status": ["garbage"]],
            ["type": "MEDIA_STATUS", "status": [["mediaSessionId": 1, "currentTime": "soon"]]],
        ] {
            let error = #expect(throws: CastChannelError.self) { try cache.apply(bad) }
            #expect(error?.code == .unexpectedReply)
            #expect(cache.status == before)
        }
    }
}
