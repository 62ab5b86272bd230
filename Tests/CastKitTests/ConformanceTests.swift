import CastChannels
import CastMedia
import CastTestSupport
import Foundation
import Testing

@_spi(Receiver) @testable import CastStreaming

/// One file of `Conformance/`: a message a real receiver sent, with where it
/// was published and what it shows (Conformance/README.md).
struct ConformanceFixture: Sendable, CustomStringConvertible, Identifiable {
    /// The file name, e.g. `040-media-status-chromecast.json`.
    let name: String
    /// The whole file: `type`, `device`, `source`, `shows`, `namespace`, …
    let metadata: JSONValue
    /// The message: `payload`, else `payload_from_python_repr`, else
    /// `payload_unwrapped`, else `payload_text` (repaired as the file's
    /// `note` describes when it is not JSON as quoted); `.null` if none.
    let message: JSONValue

    var id: String { self.name }
    var description: String { self.name }

    /// The file's `type`: a message type, or `eureka_info` for the HTTP setup API.
    var type: String { self.metadata["type"]?.stringValue ?? "" }
    /// The file's `namespace`, if recorded.
    var namespace: String? { self.metadata["namespace"]?.stringValue }
    /// The text as quoted, for the fixtures that have one.
    var quotedText: String? { self.metadata["payload_text"]?.stringValue }
    /// Whether this is a Cast message (not an HTTP answer).
    var isCastMessage: Bool { self.type != "eureka_info" }

    /// The message as compact JSON text, what a channel is fed.
    func text() throws -> String {
        try self.message.jsonText()
    }

    /// Every fixture, by file name; empty if the resource directory is missing.
    static let all: [ConformanceFixture] = (try? Self.load()) ?? []

    /// The fixtures of `types`.
    static func of(types: String...) -> [ConformanceFixture] {
        Self.all.filter { types.contains($0.type) }
    }

    /// The fixture whose file name starts with `number` and a dash, e.g. `"040"`.
    static func numbered(_ number: String) -> ConformanceFixture? {
        Self.all.first { $0.name.hasPrefix(number + "-") }
    }

    /// The only changes made to `payload_text`s that are not JSON as quoted, each what the file's `note` says.
    static let repairs: [String: @Sendable (String) -> String] = [
        // "Quoted without its opening brace in the issue (copy error by the reporter)".
        "056-load-failed-third-party-cast-builtin.json": { "{" + $0 },
        // "the reporter replaced public_key and ssdp_udn with an unquoted ***REDACTED***".
        "076-eureka-info-chromecast.json": {
            $0.replacingOccurrences(of: "***REDACTED***", with: "\"***REDACTED***\"")
        },
    ]

    private static func load() throws -> [ConformanceFixture] {
        guard let directory = Bundle.module.url(forResource: "Conformance", withExtension: nil) else { return [] }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") }
            .sorted()
        return try names.map { name in
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            let metadata = try JSONValue(parsing: text)
            var message = metadata["payload"] ?? metadata["payload_from_python_repr"] ?? metadata["payload_unwrapped"]
            if message == nil, let quoted = metadata["payload_text"]?.stringValue {
                let repaired = Self.repairs[name].map { $0(quoted) } ?? quoted
                message = try? JSONValue(parsing: repaired)
            }
            return ConformanceFixture(name: name, metadata: metadata, message: message ?? .null)
        }
    }
}

/// Every conformance payload parses, and the ones that change state drive
/// the channels: receiver status, launch progress, media status merge,
/// multizone members, and the Cast Streaming ANSWER.
@Suite(.timeLimit(.minutes(3))) struct ConformanceTests {
    /// The namespace each message type travels on.
    static let namespaces: [String: String] = [
        "RECEIVER_STATUS": CastNamespace.receiver,
        "LAUNCH_STATUS": CastNamespace.receiver,
        "LAUNCH_ERROR": CastNamespace.receiver,
        "CLOSE": "urn:x-cast:com.google.cast.tp.connection",
        "MEDIA_STATUS": CastNamespace.media,
        "LOAD_FAILED": CastNamespace.media,
        "LOAD_CANCELLED": CastNamespace.media,
        "ERROR": CastNamespace.media,
        "QUEUE_ITEMS": CastNamespace.media,
        "MULTIZONE_STATUS": CastNamespace.multizone,
        "DEVICE_ADDED": CastNamespace.multizone,
        "DEVICE_UPDATED": CastNamespace.multizone,
        "DEVICE_REMOVED": CastNamespace.multizone,
        "ANSWER": CastNamespace.webrtc,
    ]

    // MARK: Helpers

    private func fixture(_ number: String) throws -> ConformanceFixture {
        try #require(ConformanceFixture.numbered(number), "conformance fixture \(number) is missing")
    }

    /// The status a fresh, unattached receiver channel holds after fixture `number`.
    private func receiverStatus(_ number: String) throws -> ReceiverStatus {
        let channel = ReceiverChannel()
        channel.didReceiveTextMessage(try self.fixture(number).text())
        return try #require(channel.status, "\(number) did not give a receiver status")
    }

    /// A fresh cache after the fixtures `numbers`, in order.
    private func mediaCache(_ numbers: String...) throws -> MediaStatusCache {
        var cache = MediaStatusCache()
        for number in numbers {
            try cache.apply(try self.fixture(number).message)
        }
        return cache
    }

    private static func controlType(_ raw: String) -> ReceiverVolume.ControlType {
        switch raw {
        case "attenuation": .attenuation
        case "fixed": .fixed
        case "master": .master
        default: .other(raw)
        }
    }

    private static func isClose(_ value: Double?, to expected: Double, within tolerance: Double = 1e-6) -> Bool {
        guard let value else { return false }
        return abs(value - expected) <= tolerance
    }

    // MARK: Every payload parses

    @Test func allFixturesLoad() {
        #expect(ConformanceFixture.all.count >= 50)
        #expect(ConformanceFixture.all.allSatisfy { $0.message != .null })
    }

    @Test(arguments: ConformanceFixture.all)
    func payloadParses(_ fixture: ConformanceFixture) throws {
        let parsed = try JSONValue(parsing: try fixture.text())
        #expect(parsed == fixture.message)
        #expect(parsed.objectValue != nil)
        if fixture.isCastMessage {
            // 057 carries `responseType` (chromecast-java-api-v2's rewrite of `type`): messageType reads either.
            #expect(parsed.messageType == fixture.type.uppercased())
        } else {
            // 076, 078: /setup/eureka_info answers, not Cast messages.
            #expect(parsed["name"]?.stringValue != nil)
        }
        if let expected = Self.namespaces[fixture.type] {
            #expect(fixture.namespace == expected)
        }
    }

    /// 056, 069 and 076 were quoted as text that is not JSON; the loader
    /// uses the file's `payload_unwrapped` (069) or its noted repair (056, 076).
    @Test func quotedTextsThatAreNotJSON() throws {
        for number in ["056", "069", "076"] {
            let fixture = try self.fixture(number)
            let quoted = try #require(fixture.quotedText)
            #expect(throws: CastChannelError.self, "\(number) as quoted") { _ = try JSONValue(parsing: quoted) }
            #expect(fixture.message.objectValue != nil, "\(number) repaired")
        }
    }

    /// A channel ignores a message of another namespace (060 TIME_TICK: "an
    /// unknown 'type' must be ignored"; 032/033 CLOSE; 071-075 ANSWER;
    /// 076/078 are not even Cast messages), and only the one its namespace
    /// names changes state.
    @Test(arguments: ConformanceFixture.all)
    func onlyTheOwningChannelChanges(_ fixture: ConformanceFixture) throws {
        let receiver = ReceiverChannel()
        let media = RemoteMediaClient()
        let multizone = MultizoneChannel()
        let text = try fixture.text()
        for channel in [receiver, media, multizone] as [CastChannel] {
            channel.didReceiveTextMessage(text)
        }
        #expect((receiver.status != nil) == (fixture.type == "RECEIVER_STATUS"))
        let hasMediaSession =
            fixture.message["status"]?.arrayValue?.isEmpty == false || fixture.message["mediaSessionId"] != nil
        // 050: streamType is the number 1, which MediaStreamType keeps as "1".
        #expect((media.mediaStatus != nil) == (fixture.type == "MEDIA_STATUS" && hasMediaSession))
        let addsMembers = ["MULTIZONE_STATUS", "DEVICE_ADDED", "DEVICE_UPDATED"].contains(fixture.type)
        #expect(multizone.devices.isEmpty == !addsMembers)
    }

    // MARK: Receiver status

    /// Every RECEIVER_STATUS decodes through the receiver channel, field for field as sent.
    @Test(arguments: ConformanceFixture.of(types: "RECEIVER_STATUS"))
    func receiverStatusDecodes(_ fixture: ConformanceFixture) throws {
        let channel = ReceiverChannel()
        channel.didReceiveTextMessage(try fixture.text())
        let status = try #require(channel.status)
        let raw = try #require(fixture.message["status"])
        let applications = raw["applications"]?.arrayValue ?? []
        let appIDs = applications.compactMap { $0["appId"]?.stringValue }
        let sessionIDs = applications.map { $0["sessionId"]?.stringValue }
        let transportIDs = applications.map { $0["transportId"]?.stringValue }
        #expect(status.applications.map(\.appID) == appIDs)
        #expect(status.applications.map(\.sessionID) == sessionIDs)
        #expect(status.applications.map(\.transportID) == transportIDs)
        for (application, sent) in zip(status.applications, applications) {
            let namespaces = (sent["namespaces"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
            #expect(application.namespaces == namespaces)
            #expect(application.displayName == sent["displayName"]?.stringValue ?? "")
            #expect(application.statusText == sent["statusText"]?.stringValue ?? "")
            #expect(application.isIdleScreen == (sent["isIdleScreen"]?.boolValue ?? false))
            #expect(application.launchedFromCloud == (sent["launchedFromCloud"]?.boolValue ?? false))
            #expect(application.iconURL == sent["iconUrl"]?.stringValue)
            #expect(application.universalAppID == sent["universalAppId"]?.stringValue)
            #expect(application.appType == sent["appType"]?.stringValue)
        }
        let volume = raw["volume"]
        #expect(status.volume.level == volume?["level"]?.doubleValue)
        #expect(status.volume.isMuted == volume?["muted"]?.boolValue)
        #expect(status.volume.stepInterval == volume?["stepInterval"]?.doubleValue)
        let controlType = volume?["controlType"]?.stringValue.map(Self.controlType)
        #expect(status.volume.controlType == controlType)
        #expect(status.isActiveInput == raw["isActiveInput"]?.boolValue)
        #expect(status.isStandBy == raw["isStandBy"]?.boolValue)
    }

    /// 011, 013 (CCwGTV), 017 (idle speaker), 025 (group endpoint), 028:
    /// no `applications` key at all, which is no app running — not an error.
    @Test(arguments: ["011", "013", "017", "025", "028"])
    func statusWithoutApplications(_ number: String) throws {
        let status = try self.receiverStatus(number)
        #expect(status.applications.isEmpty)
        #expect(status.runningApplication(appID: CastApplicationID.defaultMediaReceiver) == nil)
        #expect(status.volume.level != nil)
    }

    @Test func oldFirmwareStatus() throws {
        // 001: isActiveInput/isStandBy, no controlType/stepInterval, transportId 'web-N', no isIdleScreen.
        let old = try self.receiverStatus("001")
        #expect(old.isActiveInput == true)
        #expect(old.isStandBy == false)
        #expect(old.volume.controlType == nil)
        #expect(old.volume.stepInterval == nil)
        let backdrop = try #require(old.applications.first)
        #expect(backdrop.transportID == "web-3")
        #expect(backdrop.transportID != backdrop.sessionID)
        #expect(backdrop.namespaces == ["urn:x-cast:com.google.cast.sse"])

        // 002: the Backdrop marked isIdleScreen counts as no app, but its session is still known.
        let idle = try self.receiverStatus("002")
        #expect(idle.runningApplication(appID: CastApplicationID.backdrop) == nil)
        #expect(idle.application(sessionID: "E5D50197-E550...")?.isIdleScreen == true)
        #expect(idle.volume.controlType == .attenuation)
        #expect(Self.isClose(idle.volume.stepInterval, to: 0.04))

        // 010: 2015 firmware, upper-case sessionId, transportId 'web-0', volume without controlType.
        let early = try self.receiverStatus("010")
        let application = try #require(early.application(sessionID: "CF2E435E-B753-4621-94A4-53DBFDAC15C3"))
        #expect(application.transportID == "web-0")
        #expect(application.statusText == "Ready To Cast")
        #expect(early.runningApplication(appID: CastApplicationID.defaultMediaReceiver) == application)
        #expect(early.volume.controlType == nil)
    }

    @Test func mirroringApplications() throws {
        // 004: transportId 'shell-v2mirroring-1' differs from sessionId; statusText 'null (Tab)'.
        let tab = try self.receiverStatus("004")
        let mirroring = try #require(tab.runningApplication(appID: CastApplicationID.mirroring))
        #expect(mirroring.transportID == "shell-v2mirroring-1")
        #expect(mirroring.sessionID == "73D2358A-793C...")
        #expect(mirroring.transportID != mirroring.sessionID)
        #expect(mirroring.statusText == "null (Tab)")
        #expect(mirroring.supports(namespace: CastNamespace.webrtc))
        #expect(!mirroring.supports(namespace: CastNamespace.remoting))

        // 005: remoting advertised next to webrtc; statusText ' (Tab)' keeps its leading space.
        let emptyTab = try self.receiverStatus("005")
        let remoting = try #require(emptyTab.runningApplication(appID: CastApplicationID.mirroring))
        #expect(remoting.supports(namespace: CastNamespace.webrtc))
        #expect(remoting.supports(namespace: CastNamespace.remoting))
        #expect(remoting.statusText == " (Tab)")
    }

    @Test func applicationsOfNewerFirmware() throws {
        // 007: answer to LAUNCH; appType and universalAppId present, transportId equals sessionId.
        let launched = try self.receiverStatus("007")
        let receiver = try #require(launched.runningApplication(appID: CastApplicationID.defaultMediaReceiver))
        #expect(receiver.appType == "WEB")
        #expect(receiver.universalAppID == CastApplicationID.defaultMediaReceiver)
        #expect(receiver.transportID == receiver.sessionID)

        // 008: another sender's app runs, with an app-chosen statusText; the DMR does not.
        let other = try self.receiverStatus("008")
        let npo = try #require(other.runningApplication(appID: "37FF7FCA"))
        #expect(npo.statusText == "Casten: NPO 3/Zapp")
        #expect(npo.displayName == "NPO Start")
        #expect(other.runningApplication(appID: CastApplicationID.defaultMediaReceiver) == nil)

        // 016: Spotify's own namespaces next to media, and an iconUrl.
        let speaker = try self.receiverStatus("016")
        let spotify = try #require(speaker.runningApplication(appID: "CC32E753"))
        #expect(spotify.supports(namespace: "urn:x-cast:com.spotify.chromecast.secure.v1"))
        #expect(spotify.supports(namespace: CastNamespace.media))
        #expect(spotify.iconURL?.hasPrefix("https://") == true)

        // 019: key order differs (type first, applications last); an integer gain_db in userEq.
        let reordered = try self.receiverStatus("019")
        #expect(reordered.runningApplication(appID: "705D30C6")?.displayName == "Default Media Receiver")

        // 020 (senderConnected true, status.version 2) and 022 (senderConnected false): the app still runs.
        for number in ["020", "022"] {
            let status = try self.receiverStatus(number)
            #expect(status.runningApplication(appID: CastApplicationID.defaultMediaReceiver) != nil, "\(number)")
        }

        // 023: a custom app with a private namespace.
        let display = try self.receiverStatus("023")
        let custom = try #require(display.runningApplication(appID: "A078F6B0"))
        #expect(custom.supports(namespace: "urn:x-cast:com.nabucasa.hast"))
        #expect(custom.universalAppID == "A078F6B0")

        // 026: a group endpoint reports the app exactly like a device.
        let group = try self.receiverStatus("026")
        #expect(group.runningApplication(appID: CastApplicationID.defaultMediaReceiver) != nil)
        #expect(group.volume.controlType == .master)
        #expect(Self.isClose(group.volume.stepInterval, to: 0.05))
    }

    @Test func volumeModels() throws {
        // 011 and 013: CCwGTV, volume goes to the TV over CEC.
        for number in ["011", "013"] {
            let status = try self.receiverStatus(number)
            #expect(status.volume.controlType == .fixed, "\(number)")
            #expect(Self.isClose(status.volume.stepInterval, to: 0.04), "\(number)")
        }
        // 014: Android TV, master with 100 steps, and isActiveInput/isStandBy.
        let television = try self.receiverStatus("014")
        #expect(television.volume.controlType == .master)
        #expect(Self.isClose(television.volume.stepInterval, to: 0.01))
        #expect(television.isActiveInput == true)
        #expect(television.isStandBy == false)
        // 017: speaker, master with stepInterval 0.02.
        let speaker = try self.receiverStatus("017")
        #expect(speaker.volume.controlType == .master)
        #expect(Self.isClose(speaker.volume.stepInterval, to: 0.02))
        // 023: this display reports attenuation.
        let display = try self.receiverStatus("023")
        #expect(display.volume.controlType == .attenuation)
        // 028: fixed with stepInterval 1/15.
        let fixed = try self.receiverStatus("028")
        #expect(fixed.volume.controlType == .fixed)
        #expect(Self.isClose(fixed.volume.stepInterval, to: 1.0 / 15.0))
        #expect(fixed.volume.level == 1)
    }

    /// 007 then 007 again then 010: a status event and a volume event for
    /// each change, nothing for the repeated status.
    @Test func receiverStatusEvents() async throws {
        let launched = try self.fixture("007")
        let early = try self.fixture("010")
        let channel = ReceiverChannel()
        let events = channel.events()
        channel.didReceiveTextMessage(try launched.text())
        channel.didReceiveTextMessage(try launched.text())
        channel.didReceiveTextMessage(try early.text())
        let received = await collect(events, count: 4, within: .seconds(5)) { event -> ReceiverEvent? in event }
        let before = ReceiverStatus(json: try #require(launched.message["status"]))
        let after = ReceiverStatus(json: try #require(early.message["status"]))
        #expect(
            received == [
                .statusChanged(before), .volumeChanged(before.volume), .statusChanged(after),
                .volumeChanged(after.volume),
            ])
        #expect(channel.status == after)
    }

    // MARK: Launch

    /// 029 (Nest Hub) and 030 (third-party Cast built-in): LAUNCH_STATUS
    /// keyed by launchRequestId is launch progress, not a status.
    @Test(arguments: ["029", "030"])
    func launchStatusIsProgress(_ number: String) async throws {
        let fixture = try self.fixture(number)
        #expect(fixture.message["launchRequestId"]?.intValue != nil)
        #expect(fixture.message["requestId"] == nil)
        let channel = ReceiverChannel()
        let events = channel.events()
        channel.didReceiveTextMessage(try fixture.text())
        let event = await first(events, within: .seconds(5)) { _ in true }
        #expect(event == .launchStatusChanged(.userAllowed))
        #expect(channel.status == nil)
    }

    /// 031: LAUNCH_ERROR with reason NOT_FOUND, keyed by requestId; with no
    /// launch pending it changes nothing and sends no event.
    @Test func launchErrorWithoutPendingLaunch() async throws {
        let refusal = try self.fixture("031")
        let reason = refusal.message["reason"]?.stringValue.map(LaunchErrorReason.init(rawValue:))
        #expect(reason == .notFound)
        #expect(refusal.message["requestId"]?.intValue == 14)
        let channel = ReceiverChannel()
        let events = channel.events()
        channel.didReceiveTextMessage(try refusal.text())
        channel.didReceiveTextMessage(try self.fixture("029").text())
        let event = await first(events, within: .seconds(5)) { _ in true }
        #expect(event == .launchStatusChanged(.userAllowed))
        #expect(channel.status == nil)
    }

    // MARK: Close

    /// 032 and 033: CLOSE on the connection namespace, without a reason.
    @Test(arguments: ["032", "033"])
    func closeParses(_ number: String) throws {
        let fixture = try self.fixture(number)
        let parsed = try JSONValue(parsing: try fixture.text())
        #expect(fixture.namespace == "urn:x-cast:com.google.cast.tp.connection")
        #expect(parsed.messageType == "CLOSE")
        #expect(parsed == ["type": "CLOSE"])
        #expect(parsed["reasonCode"] == nil)
    }

    // MARK: Media status

    /// Every MEDIA_STATUS applies to a fresh cache and to an unattached
    /// media client, which agree, with the fields as sent.
    @Test(arguments: ConformanceFixture.of(types: "MEDIA_STATUS"))
    func mediaStatusApplies(_ fixture: ConformanceFixture) throws {
        var cache = MediaStatusCache()
        // 050: streamType is the number 1, which MediaStreamType keeps as "1".
        let status = try cache.apply(fixture.message)
        let client = RemoteMediaClient()
        client.didReceiveTextMessage(try fixture.text())
        #expect(client.mediaStatus == status)

        // 037 has no status array: its fields sit at the top level.
        var sent = fixture.message["status"]?.arrayValue?.first
        if sent == nil, fixture.message["mediaSessionId"] != nil {
            sent = fixture.message
        }
        guard let entry = sent else {
            #expect(status == nil)  // 043: an empty status array is no media session.
            return
        }
        let decoded = try #require(status)
        #expect(decoded.mediaSessionID == entry["mediaSessionId"]?.intValue)
        #expect(decoded.playerState.rawValue == entry["playerState"]?.stringValue)
        #expect(decoded.idleReason?.rawValue == entry["idleReason"]?.stringValue)
        #expect(decoded.currentTime == entry["currentTime"]?.doubleValue)
        #expect(decoded.supportedMediaCommands.rawValue == entry["supportedMediaCommands"]?.intValue)
        #expect(decoded.currentItemID == entry["currentItemId"]?.intValue)
        #expect(decoded.media?.contentID == entry["media"]?["contentId"]?.stringValue)
        #expect((decoded.extendedStatus != nil) == (entry["extendedStatus"] != nil))
    }

    /// 040 (IDLE + extendedStatus LOADING) then 041 (partial broadcast: IDLE
    /// + ERROR, no media): the failure merges onto the loading status.
    @Test func loadThenFailureMerges() throws {
        var cache = MediaStatusCache()
        let applied = try cache.apply(try self.fixture("040").message)
        let loading = try #require(applied)
        #expect(loading.playerState == PlayerState.idle)
        #expect(loading.extendedStatus?["playerState"]?.stringValue == "LOADING")
        #expect(loading.extendedStatus?["mediaSessionId"]?.intValue == 5)
        #expect(loading.media?.metadata?.type == .generic)
        #expect(loading.media?.metadata?.integer(forKey: "type") == 0)

        let merged = try cache.apply(try self.fixture("041").message)
        let failed = try #require(merged)
        #expect(failed.mediaSessionID == 5)
        #expect(failed.playerState == PlayerState.idle)
        #expect(failed.idleReason == IdleReason.error)
        #expect(failed.extendedStatus == nil)
        #expect(failed.media?.contentID == "http://10.100.110.5:33053/")
        #expect(failed.media?.contentType == "audio/wav")
        #expect(failed.media?.streamType == MediaStreamType.buffered)
        #expect(failed.supportedMediaCommands.rawValue == 12303)
        #expect(failed.activeTrackIDs == [])
        #expect(failed.repeatMode == RepeatMode.off)
        #expect(cache.status == failed)
    }

    /// 040 then 041 through the media client: two status events, the second merged.
    @Test func mediaClientPublishesMergedStatus() async throws {
        let client = RemoteMediaClient()
        let events = client.events()
        client.didReceiveTextMessage(try self.fixture("040").text())
        client.didReceiveTextMessage(try self.fixture("041").text())
        let received = await collect(events, count: 3, within: .seconds(5)) { event -> MediaEvent? in event }
        let expected = try self.mediaCache("040", "041").status
        // 040 carries `media` (metadata, then status); 041 does not (status alone).
        #expect(received.count == 3)
        #expect(received.first == .metadataChanged(try self.mediaCache("040").status?.media))
        #expect(received.last == .statusChanged(expected))
        #expect(client.mediaStatus == expected)
        #expect(client.mediaStatus?.media?.contentID == "http://10.100.110.5:33053/")
    }

    /// 038: end of playback is an unsolicited IDLE + FINISHED without media;
    /// the media already known for that session is kept.
    @Test func finishedKeepsTheMedia() throws {
        let media: JSONValue = [
            "contentId": "http://192.168.2.139:9080/audio/track.mp3", "contentType": "audio/mpeg",
            "streamType": "BUFFERED", "duration": 596.5,
        ]
        let volume: JSONValue = ["level": 1, "muted": false]
        let entry: JSONValue = [
            "mediaSessionId": 1, "playbackRate": 1, "playerState": "PLAYING", "currentTime": 590.5,
            "supportedMediaCommands": 15, "volume": volume, "currentItemId": 1, "repeatMode": "REPEAT_OFF",
            "media": media,
        ]
        let playing: JSONValue = ["type": "MEDIA_STATUS", "requestId": 3, "status": [entry]]
        var cache = MediaStatusCache()
        try cache.apply(playing)
        let applied = try cache.apply(try self.fixture("038").message)
        let finished = try #require(applied)
        #expect(finished.playerState == PlayerState.idle)
        #expect(finished.idleReason == IdleReason.finished)
        #expect(finished.media?.contentID == "http://192.168.2.139:9080/audio/track.mp3")
        #expect(finished.media?.duration == 596.5)
        #expect(finished.currentTime == 0)
        #expect(finished.repeatMode == RepeatMode.off)
    }

    /// 043: an empty status array after a session means there is no media session any more.
    @Test func emptyStatusEndsTheSession() throws {
        var cache = try self.mediaCache("040")
        #expect(cache.status != nil)
        let applied = try cache.apply(try self.fixture("043").message)
        #expect(applied == nil)
        #expect(cache.status == nil)
    }

    @Test func mediaStatusDetails() throws {
        // 034: a videoInfo block, media without streamType, an item with customData.
        let buffering = try #require(try self.mediaCache("034").status)
        #expect(buffering.playerState == PlayerState.buffering)
        #expect(buffering.videoInfo == VideoInfo(width: 1280, height: 720, hdrType: .sdr))
        #expect(buffering.media?.duration == 596.474195)
        #expect(buffering.items?.map(\.itemID) == [1])
        #expect(buffering.items?.first?.customData?["payload"]?["thumb"]?.stringValue == "images/BigBuckBunny.jpg")

        // 035: contentType null; extendedStatus says LOADING while playerState is IDLE.
        let loading = try #require(try self.mediaCache("035").status)
        #expect(loading.media?.contentType == "")
        #expect(loading.playerState == PlayerState.idle)
        #expect(loading.extendedStatus?["playerState"]?.stringValue == "LOADING")

        // 037: no status array; mediaSessionId 0, streamType NONE, empty contentId, volume {}.
        let topLevel = try #require(try self.mediaCache("037").status)
        #expect(topLevel.mediaSessionID == 0)
        #expect(topLevel.media?.streamType == MediaStreamType.none)
        #expect(topLevel.media?.contentID == "")
        #expect(topLevel.media?.metadata?.string(forKey: .title) == "We Take Your Calls")
        #expect(topLevel.volume == StreamVolume())
        #expect(topLevel.supportedMediaCommands.isEmpty)

        // 044: contentType 'music' as the sender sent it; empty metadata.
        let music = try #require(try self.mediaCache("044").status)
        #expect(music.media?.contentType == "music")
        #expect(music.media?.metadata?.type == .generic)
        #expect(music.supportedMediaCommands.rawValue == 15)

        // 046: a non-DMR app: streamType NONE, an image.
        let image = try #require(try self.mediaCache("046").status)
        #expect(image.media?.streamType == MediaStreamType.none)
        #expect(image.media?.contentType == "image/jpeg")
        #expect(image.media?.metadata?.string(forKey: .title) == "d-livingroom: Home")

        // 047: a failure broadcast on a new session: IDLE + ERROR without media.
        let failed = try #require(try self.mediaCache("047").status)
        #expect(failed.idleReason == IdleReason.error)
        #expect(failed.media == nil)

        // 049: command bits beyond the documented set, a music track with custom keys, entity, customData.
        let spotify = try #require(try self.mediaCache("049").status)
        #expect(spotify.supportedMediaCommands.rawValue == 1_039_823)
        #expect(spotify.supportedMediaCommands.contains(.pause))
        #expect(spotify.supportedMediaCommands.contains(.seek))
        #expect(spotify.media?.contentType == "application/x-spotify.track")
        #expect(spotify.media?.entity == "spotify:track:1H7wITTESh5yB1KmrLhu5E")
        #expect(spotify.media?.metadata?.type == .musicTrack)
        #expect(spotify.media?.metadata?.string(forKey: "songName") == "Aquarius")
        #expect(spotify.media?.metadata?.string(forKey: .artist) == "Yoel Lewis")
        #expect(spotify.media?.metadata?.images.map(\.width) == [640, 64, 300])
        #expect(spotify.media?.customData?["playerPlaybackState"]?["paused"]?.boolValue == false)
        #expect(spotify.items == nil)
    }

    /// 050: the receiver echoes streamType as the NUMBER 1 in media and
    /// items; duration null; empty tracks, breaks and clips; orderId.
    @Test func numericStreamTypeParses() throws {
        var cache = MediaStatusCache()
        // MediaStreamType keeps a numeric streamType as it came.
        let applied = try cache.apply(try self.fixture("050").message)
        let status = try #require(applied)
        #expect(status.playerState == PlayerState.playing)
        #expect(status.media?.contentID == "https://orf-live.ors-shoutcast.at/oe1-q1a")
        #expect(status.media?.duration == nil)
        #expect(status.media?.tracks == [])
        #expect(status.media?.metadata?.string(forKey: .title) == "Ö1-(128bps)")
        #expect(status.items?.map(\.itemID) == [1])
        #expect(status.items?.first?.media?.contentID == status.media?.contentID)
    }

    // MARK: Media replies and unknown types

    /// LOAD_FAILED (052, 053, 055, 056), LOAD_CANCELLED (057), ERROR (058),
    /// QUEUE_ITEMS (059) and TIME_TICK (060) reach an unattached media
    /// client with no request pending: nothing crashes, the status stays,
    /// and no status event is published for them.
    @Test(
        arguments: ConformanceFixture.of(
            types: "LOAD_FAILED", "LOAD_CANCELLED", "ERROR", "QUEUE_ITEMS", "TIME_TICK"))
    func mediaRepliesLeaveTheStatus(_ fixture: ConformanceFixture) async throws {
        let fresh = RemoteMediaClient()
        fresh.didReceiveTextMessage(try fixture.text())
        #expect(fresh.mediaStatus == nil)

        let client = RemoteMediaClient()
        client.didReceiveTextMessage(try self.fixture("040").text())
        let before = try #require(client.mediaStatus)
        let events = client.events()
        client.didReceiveTextMessage(try fixture.text())
        #expect(client.mediaStatus == before)
        client.didReceiveTextMessage(try self.fixture("041").text())
        let event = await first(events, within: .seconds(5)) { _ in true }
        #expect(event == .statusChanged(client.mediaStatus))
        #expect(client.mediaStatus?.idleReason == IdleReason.error)

        if ["LOAD_FAILED", "ERROR"].contains(fixture.type) {
            #expect(fixture.message["detailedErrorCode"]?.intValue == 104)  // MEDIA_SRC_NOT_SUPPORTED
        }
    }

    /// 059: QUEUE_ITEMS whose media.streamType is the NUMBER 2, with contentUrl and orderId.
    @Test func queueItemsDecode() throws {
        let items = try #require(try self.fixture("059").message["items"])
        // MediaStreamType keeps a numeric streamType as it came.
        let decoded = try JSONDecoder().decode([MediaQueueItem].self, from: Data(try items.jsonText().utf8))
        #expect(decoded.map(\.itemID) == [9])
        let media = try #require(decoded.first?.media)
        #expect(media.contentID == "Aquarium")
        #expect(media.contentURL == "https://incompetech.com/music/royalty-free/mp3-royaltyfree/Aquarium.mp3")
        #expect(media.contentType == "audio/mpeg")
        #expect(media.duration == 144.013078)
    }

    // MARK: Multizone

    /// 062: a single speaker's MULTIZONE_STATUS about itself.
    @Test func singleSpeakerStatus() async throws {
        let channel = MultizoneChannel()
        let events = channel.events()
        channel.didReceiveTextMessage(try self.fixture("062").text())
        let speaker = MultizoneDevice(
            id: "123456-11c9-8822-cbde-114234fabd", name: "Living Room speaker", capabilities: 196_612,
            volume: ReceiverVolume(level: 0.30000001192092896, isMuted: false))
        #expect(channel.devices == [speaker])
        let event = await first(events, within: .seconds(5)) { _ in true }
        #expect(event == .statusChanged(MultizoneStatus(devices: [speaker], isMultichannel: false)))
    }

    /// 063: a group's members with their capabilities, in the receiver's order.
    @Test func groupStatus() async throws {
        let channel = MultizoneChannel()
        let events = channel.events()
        channel.didReceiveTextMessage(try self.fixture("063").text())
        let devices = channel.devices
        let names = ["Soundbar Speaker", "Dining Room Speaker", "Kitchen display", "Living Room Speaker"]
        #expect(devices.map(\.name) == names)
        #expect(devices.map(\.capabilities) == [196_612, 196_612, 229_381, 196_612])
        #expect(devices.map(\.id).first == "d79e7a52-47f2-c034-11d4-945d28aaedbc")
        #expect(devices.allSatisfy { $0.volume?.isMuted == false })
        #expect(Self.isClose(devices.first?.volume?.level, to: 0.1038113385438919, within: 1e-12))
        let event = await first(events, within: .seconds(5)) { _ in true }
        #expect(event == .statusChanged(MultizoneStatus(devices: devices, isMultichannel: false)))
    }

    /// 065 DEVICE_ADDED then 067 DEVICE_UPDATED of the same member 'Amplifier'
    /// (chromecast-java-api-v2 issue #103). The fixture author anonymised
    /// the two deviceIds differently ('123456', '654321'), so the added
    /// device here takes 067's id.
    @Test func memberAddedThenUpdated() async throws {
        let added = try self.fixture("065")
        let updated = try self.fixture("067")
        let updatedID = try #require(updated.message["device"]?["deviceId"])
        var device = try #require(added.message["device"]?.objectValue)
        device["deviceId"] = updatedID
        var message = try #require(added.message.objectValue)
        message["device"] = .object(device)

        let channel = MultizoneChannel()
        let events = channel.events()
        channel.didReceiveTextMessage(try JSONValue.object(message).jsonText())
        channel.didReceiveTextMessage(try updated.text())
        let received = await collect(events, count: 2, within: .seconds(5)) { event -> MultizoneEvent? in event }
        let amplifier = MultizoneDevice(
            id: "654321", name: "Amplifier", capabilities: 4, volume: ReceiverVolume(level: 0.24, isMuted: false))
        var louder = amplifier
        louder.volume = ReceiverVolume(level: 0.35, isMuted: false)
        #expect(received == [.deviceAdded(amplifier), .deviceUpdated(louder)])
        #expect(channel.devices == [louder])
    }

    /// 065: DEVICE_ADDED with capabilities 4 on an older audio device.
    @Test func memberAdded() async throws {
        let channel = MultizoneChannel()
        let events = channel.events()
        channel.didReceiveTextMessage(try self.fixture("065").text())
        let amplifier = MultizoneDevice(
            id: "123456", name: "Amplifier", capabilities: 4, volume: ReceiverVolume(level: 0.24, isMuted: false))
        #expect(channel.devices == [amplifier])
        let event = await first(events, within: .seconds(5)) { _ in true }
        #expect(event == .deviceAdded(amplifier))
    }

    /// 066 (Nest Hub) and 069 (JBL speaker): a single device broadcasts
    /// DEVICE_UPDATED about itself; the channel keeps it as its one member.
    @Test(arguments: [("066", 229_381), ("069", 4)])
    func deviceUpdatesItself(_ number: String, capabilities: Int) throws {
        let fixture = try self.fixture(number)
        let channel = MultizoneChannel()
        channel.didReceiveTextMessage(try fixture.text())
        let device = try #require(channel.devices.first)
        #expect(channel.devices.count == 1)
        #expect(device.id == fixture.message["device"]?["deviceId"]?.stringValue)
        #expect(device.capabilities == capabilities)
        #expect(device.volume?.level == fixture.message["device"]?["volume"]?["level"]?.doubleValue)
        #expect(device.volume?.isMuted == false)
    }

    /// 069 as logged, with the log's wrap inside a key, is not JSON: dropped quietly.
    @Test func wrappedDeviceUpdateIsDropped() throws {
        let quoted = try #require(try self.fixture("069").quotedText)
        let channel = MultizoneChannel()
        channel.didReceiveTextMessage(quoted)
        #expect(channel.devices.isEmpty)
    }

    /// 070: DEVICE_REMOVED carries only deviceId. The member is added first
    /// under that id ('111111', the fixture author's) from 065's device.
    @Test func memberRemoved() async throws {
        let removed = try self.fixture("070")
        #expect(removed.message["device"] == nil)
        let id = try #require(removed.message["deviceId"]?.stringValue)
        var device = try #require(try self.fixture("065").message["device"]?.objectValue)
        device["deviceId"] = .string(id)

        let channel = MultizoneChannel()
        let added: [String: JSONValue] = ["type": "DEVICE_ADDED", "requestId": 0, "device": .object(device)]
        channel.didReceiveTextMessage(try JSONValue.object(added).jsonText())
        #expect(channel.devices.map(\.id) == [id])
        let events = channel.events()
        channel.didReceiveTextMessage(try removed.text())
        #expect(channel.devices.isEmpty)
        let event = await first(events, within: .seconds(5)) { _ in true }
        #expect(event == .deviceRemoved(id: id))
    }

    // MARK: Cast Streaming ANSWER

    /// 071: the oldest ANSWER, without seqNum, castMode, display or
    /// constraints; it accepts both offered streams.
    @Test func oldestAnswer() throws {
        let offer = try StreamingOffer(configuration: RemoteDisplayConfiguration(), sequenceNumber: 1)
        // Audio, VP9, VP8; the ANSWER takes indexes 0 and 1.
        #expect(offer.streams.map(\.index) == [0, 1, 2])
        let message = try self.fixture("071").message
        #expect(message["seqNum"] == nil)
        let answer = try StreamingAnswer(message, offer: offer)
        #expect(answer.udpPort == 36916)
        #expect(answer.streams.map(\.kind) == [.audio, .video])
        #expect(answer.streams.map(\.ssrc) == offer.streams.prefix(2).map(\.ssrc))
        #expect(answer.streams.map(\.receiverSSRC) == [306_349, 866_108])
        #expect(answer.configuration.videoCodec == .vp9)
        #expect(answer.letterbox == nil)
        #expect(answer.configuration.resolution == .hd720)
        #expect(answer.configuration.audio != nil)
    }

    /// 073: a Google TV's display block: frameRate as the STRING "60",
    /// 3840×2160 (16:9), scaling 'sender'.
    @Test func displayAnswer() throws {
        let message = try self.fixture("073").message

        // 1280×720 is the display's shape: no letterbox; the frame rate stays within 60.
        let offer = try StreamingOffer(configuration: RemoteDisplayConfiguration(), sequenceNumber: 2)
        let answer = try StreamingAnswer(message, offer: offer)
        #expect(answer.udpPort == 47505)
        #expect(answer.streams.map(\.kind) == [.audio, .video])
        #expect(answer.streams.map(\.receiverSSRC) == [20002, 50002])
        #expect(answer.letterbox == nil)
        #expect(answer.configuration.resolution == .hd720)
        #expect(answer.configuration.maximumFrameRate <= 60)
        #expect(answer.configuration.maximumFrameRate == 30)

        // A sender asking for more than the display's "60" gets 60.
        let fast = try StreamingOffer(
            configuration: RemoteDisplayConfiguration(maximumFrameRate: 120), sequenceNumber: 2)
        let capped = try StreamingAnswer(message, offer: fast)
        #expect(capped.configuration.maximumFrameRate == 60)

        // A 4:3 picture is letterboxed by the sender into 16:9 frames.
        let square = RemoteDisplayConfiguration(resolutions: [.init(width: 1024, height: 768)])
        let boxed = try StreamingAnswer(message, offer: try StreamingOffer(configuration: square, sequenceNumber: 2))
        let letterbox = try #require(boxed.letterbox)
        #expect(letterbox.frameSize.height == 768)
        #expect(abs(Double(letterbox.frameSize.width) / Double(letterbox.frameSize.height) - 16.0 / 9.0) < 0.01)
        #expect(letterbox.content.width == 1024)
        #expect(letterbox.content.height == 768)
    }

    /// 075: one stream accepted, at index 0, with castMode and rtpExtensions
    /// [[]]. The TV answered an offer whose only (video) stream had index 0,
    /// as Chrome numbers a video-only offer (Open Screen sender_session.cc:160-183);
    /// this sender numbers the same way, so an offer with audio gets its
    /// audio accepted, and a video-only offer its first (VP9) stream.
    @Test func singleStreamAnswer() throws {
        let message = try self.fixture("075").message
        let offer = try StreamingOffer(configuration: RemoteDisplayConfiguration(), sequenceNumber: 1)
        let answer = try StreamingAnswer(message, offer: offer)
        #expect(answer.udpPort == 52373)
        #expect(answer.streams.map(\.kind) == [.audio])
        #expect(answer.streams.map(\.receiverSSRC) == [19_088_744])
        #expect(answer.configuration.audio != nil)
        #expect(answer.letterbox == nil)

        let videoOnly = try StreamingOffer(configuration: RemoteDisplayConfiguration(audio: nil), sequenceNumber: 1)
        #expect(videoOnly.streams.map(\.index) == [0, 1])
        let video = try StreamingAnswer(message, offer: videoOnly)
        #expect(video.streams.map(\.kind) == [.video])
        #expect(video.configuration.videoCodec == .vp9)
    }
}
