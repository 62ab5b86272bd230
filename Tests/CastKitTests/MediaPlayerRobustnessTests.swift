import CastChannels
import CastTestSupport
import Testing

@testable import CastEmulator

/// The emulator's player takes requests from the network: whatever arrives,
/// in whatever order, it answers or refuses, and never traps.
@Suite(.timeLimit(.minutes(3))) struct MediaPlayerRobustnessTests {
    static let types = [
        "LOAD", "QUEUE_LOAD", "PLAY", "PAUSE", "STOP", "SEEK", "SET_VOLUME", "EDIT_TRACKS_INFO", "SET_PLAYBACK_RATE",
        "SKIP_AD", "QUEUE_UPDATE", "QUEUE_INSERT", "QUEUE_REMOVE", "QUEUE_REORDER", "QUEUE_GET_ITEM_IDS",
        "QUEUE_GET_ITEMS", "GET_STATUS", "DANCE",
    ]

    static func randomNumber(_ generator: inout SplitMix64) -> JSONValue {
        switch generator.next() % 6 {
        case 0: .integer(Int(bitPattern: UInt(generator.next())))
        case 1: .integer(Int(generator.next() % 8) - 3)
        case 2: .number(Double(generator.next() % 1000) / 7 - 20)
        case 3: .number(.infinity)
        case 4: "nine"
        default: .null
        }
    }

    static func randomMedia(_ generator: inout SplitMix64) -> JSONValue {
        [
            "contentId": .string("m\(generator.next() % 4)"), "duration": Self.randomNumber(&generator),
            "breaks": [["id": "b", "position": Self.randomNumber(&generator), "breakClipIds": ["c1", "c2"]]],
            "breakClips": [["id": "c1", "duration": Self.randomNumber(&generator), "whenSkippable": 1], ["id": "c2"]],
        ]
    }

    static func randomRequest(_ generator: inout SplitMix64, sessionID: Int) -> JSONValue {
        var request: [String: JSONValue] = [
            "type": .string(Self.types[Int(generator.next() % UInt64(Self.types.count))]),
            "requestId": .integer(Int(generator.next() % 100)),
            "mediaSessionId": generator.next() % 5 == 0 ? Self.randomNumber(&generator) : .integer(sessionID),
        ]
        let items: [JSONValue] = (0..<Int(generator.next() % 4)).map { _ in
            ["media": Self.randomMedia(&generator), "itemId": Self.randomNumber(&generator)]
        }
        for key in [
            "currentTime", "relativeTime", "jump", "startIndex", "insertBefore", "currentItemId", "playbackRate",
        ]
        where generator.next() % 3 == 0 {
            request[key] = Self.randomNumber(&generator)
        }
        if generator.next() % 2 == 0 { request["media"] = Self.randomMedia(&generator) }
        if generator.next() % 2 == 0 { request["items"] = .array(items) }
        if generator.next() % 3 == 0 {
            request["itemIds"] = [Self.randomNumber(&generator), Self.randomNumber(&generator)]
        }
        if generator.next() % 4 == 0 {
            request["repeatMode"] = ["REPEAT_ALL", "REPEAT_SINGLE", "REPEAT_OFF", "X"][Int(generator.next() % 4)]
        }
        if generator.next() % 4 == 0 { request["shuffle"] = true }
        if generator.next() % 4 == 0 { request["volume"] = ["level": Self.randomNumber(&generator), "muted": true] }
        return .object(request)
    }

    @Test func theQueueIsBounded() {
        var player = MediaPlayer()
        let item: JSONValue = ["media": ["contentId": "x"]]
        let tooMany = player.handle(
            [
                "type": "QUEUE_LOAD", "requestId": 1,
                "items": .array(Array(repeating: item, count: MediaPlayer.queueLimit + 1)),
            ],
            now: 0)
        #expect(tooMany.replies.first?["type"] == "INVALID_REQUEST")
        _ = player.handle(
            [
                "type": "QUEUE_LOAD", "requestId": 2,
                "items": .array(Array(repeating: item, count: MediaPlayer.queueLimit)),
            ],
            now: 0)
        let more = player.handle(
            ["type": "QUEUE_INSERT", "requestId": 3, "mediaSessionId": 1, "items": [item]], now: 0)
        #expect(more.replies.first?["type"] == "INVALID_REQUEST")
        #expect(more.replies.first?["reason"] == "INVALID_PARAMS")
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomRequestsAndTicksNeverTrap(seed: UInt64) {
        var generator = SplitMix64(seed: seed)
        var player = MediaPlayer()
        var now = 0.0
        var answered = 0
        for _ in 0..<2_000 {
            let sessionID =
                player.statusMessage(requestID: 0, includingMedia: false)["status"]?[0]?["mediaSessionId"]?.intValue
                ?? 0
            if generator.next() % 3 == 0 {
                now += Double(generator.next() % 20_000) / 1000
                _ = player.tick(now: now)
            } else {
                let outcome = player.handle(Self.randomRequest(&generator, sessionID: sessionID), now: now)
                answered += outcome.replies.count
                for reply in outcome.replies {
                    #expect(reply["type"]?.stringValue != nil)
                }
            }
            let status = player.statusMessage(requestID: 0, includingMedia: true)
            #expect(status["type"] == "MEDIA_STATUS")
        }
        #expect(answered > 700)
    }
}

extension JSONValue {
    /// The element `index` of an array; `nil` for other values or out of range.
    fileprivate subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }
}
