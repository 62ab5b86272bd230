import CastChannels
import Testing

@_spi(Receiver) @testable import CastStreaming

/// The sender's Cast Streaming behaviour where the audit found it differed
/// from Open Screen's and Chrome's (rows 7, 8, 9, 10, 17). Each test failed
/// on the code before the fix.
@Suite(.timeLimit(.minutes(3))) struct RealReceiverStreamingTests {
    typealias Wire = SenderEngineTests.Wire

    let audio = StreamParameters(
        kind: .audio, ssrc: 11, receiverSSRC: 12, payloadType: 127, rtpTimebase: 48_000,
        key: StreamKey(key: Array(repeating: 3, count: 16), ivMask: Array(repeating: 4, count: 16))!)
    let video = SenderEngineTests().video
    let start = HostTime(nanoseconds: 1_000_000_000)

    func at(_ milliseconds: Int) -> HostTime { self.start.advanced(by: .milliseconds(milliseconds)) }

    func senderReports(_ wire: Wire) -> [UInt32] {
        wire.datagrams.compactMap { datagram in
            datagram.withUnsafeBytes { RTCPCompound.parse($0) }?.senderReport?.ssrc
        }
    }

    /// Row 7: until the round-trip time is known, every frame is preceded by
    /// a Sender Report (Open Screen sender_impl.cc:232-234), because Open
    /// Screen's receiver drops packet 0 of every frame until it has one.
    @Test func everyFrameGetsASenderReportUntilTheRoundTripIsKnown() throws {
        let wire = Wire()
        let engine = try SenderEngine(
            streams: [self.video], epoch: self.start, playoutDelay: .milliseconds(400), bitrate: nil,
            transmit: { wire.datagrams.append(Array($0)) })
        try SenderEngineTests().enqueueFrames(3, of: 5, into: engine)
        let frame = [UInt8](repeating: 5, count: 100)
        #expect(self.senderReports(wire).count == 3)
        // The receiver echoes the last report: the round trip is known, and frames go without one.
        let last = try #require(
            wire.datagrams.last { $0.withUnsafeBytes { RTCPCompound.parse($0) }?.senderReport != nil }
                .flatMap { $0.withUnsafeBytes { RTCPCompound.parse($0) }?.senderReport })
        var receiverReport: [UInt8] = []
        RTCPWriter.appendReceiverReport(
            ssrc: 500_002,
            block: ReportBlock(
                sourceSSRC: 500_001, lastSenderReport: NTPTime.compact(last.ntpTimestamp),
                delaySinceLastSenderReport: 0),
            to: &receiverReport)
        receiverReport.withUnsafeBytes { engine.handleFeedback($0, arrival: self.at(80)) }
        #expect(engine.roundTripTime != nil)
        try frame.withUnsafeBytes { bytes in
            _ = try engine.enqueue(bytes, kind: .video, isKeyFrame: false, captureTime: self.at(99), now: self.at(99))
        }
        #expect(self.senderReports(wire).count == 3)
    }

    /// Row 8: over IPv6 packets are at most 1452 bytes (Open Screen environment.cc:81-94).
    @Test func ipv6PacketsAreAtMost1452Bytes() throws {
        var parameters = self.video
        parameters.maximumPacketSize = RTPPacketHeader.maximumIPv6PacketSize
        let wire = Wire()
        let engine = try SenderEngine(
            streams: [parameters], epoch: self.start, playoutDelay: .milliseconds(400), bitrate: nil,
            transmit: { wire.datagrams.append(Array($0)) })
        let frame = [UInt8](repeating: 9, count: 10 * RTPPacketHeader.maximumPayloadSize)
        try frame.withUnsafeBytes { bytes in
            _ = try engine.enqueue(bytes, kind: .video, isKeyFrame: true, captureTime: self.at(0), now: self.at(0))
        }
        let media = wire.media
        #expect(media.count == 11)  // 10 IPv4 payloads need 11 IPv6 packets
        #expect(media.allSatisfy { $0.bytes.count <= 1_452 })
        #expect(media.first?.bytes.count == 1_452)
        #expect(try UDPSocket(host: "::1", port: 9).isIPv6)
        #expect(try UDPSocket(host: "127.0.0.1", port: 9).isIPv6 == false)
    }

    /// Row 10: RTCP goes to the stream whose receiver wrote it, and only that
    /// receiver's XR moves a stream's staleness watermark (Open Screen
    /// sender_packet_router.cc:103, :113; compound_rtcp_parser.cc:417-418).
    /// Before, a newer audio XR made the video's next feedback stale.
    @Test func feedbackIsRoutedByTheReceiversSSRC() throws {
        let wire = Wire()
        let engine = try SenderEngine(
            streams: [self.audio, self.video], epoch: self.start, playoutDelay: .milliseconds(400), bitrate: nil,
            transmit: { wire.datagrams.append(Array($0)) })
        let frame = [UInt8](repeating: 1, count: 100)
        for index in 0..<2 {
            try frame.withUnsafeBytes { bytes in
                _ = try engine.enqueue(
                    bytes, kind: .video, isKeyFrame: index == 0, captureTime: self.at(33 * index),
                    now: self.at(33 * index))
            }
        }
        // The audio receiver's RTCP, with a newer reference time, arrives first…
        var audioFeedback: [UInt8] = []
        RTCPWriter.appendReceiverReport(ssrc: 12, block: nil, to: &audioFeedback)
        RTCPWriter.appendReceiverReferenceTime(ssrc: 12, ntp: 2_000, to: &audioFeedback)
        audioFeedback.withUnsafeBytes { engine.handleFeedback($0, arrival: self.at(40)) }
        // …then the video receiver's, written a moment earlier, acknowledging frame 1.
        var videoFeedback: [UInt8] = []
        RTCPWriter.appendReceiverReport(ssrc: 500_002, block: nil, to: &videoFeedback)
        RTCPWriter.appendReceiverReferenceTime(ssrc: 500_002, ntp: 1_000, to: &videoFeedback)
        RTCPWriter.appendCastFeedback(
            CastFeedback(receiverSSRC: 500_002, senderSSRC: 500_001, checkpointFrameID: 1, playoutDelay: 400),
            to: &videoFeedback)
        videoFeedback.withUnsafeBytes { engine.handleFeedback($0, arrival: self.at(41)) }
        #expect(engine.counters(.video)?.framesAcknowledged == 2)
        // RTCP from an SSRC no stream's receiver has is dropped.
        var stranger: [UInt8] = []
        RTCPWriter.appendReceiverReport(ssrc: 77, block: nil, to: &stranger)
        stranger.withUnsafeBytes { engine.handleFeedback($0, arrival: self.at(42)) }
        #expect(engine.malformedFeedback == 1)
    }

    /// Row 17: one AES key and IV mask for every stream of the session, as
    /// Chrome's mirroring session offers (session.cc `CreateAndSendOffer`).
    @Test func everyStreamOfAnOfferSharesOneKey() throws {
        let offer = try StreamingOffer(configuration: RemoteDisplayConfiguration(), sequenceNumber: 1)
        let streams = try #require(offer.message["offer"]?["supportedStreams"]?.arrayValue)
        #expect(streams.count == 3)
        #expect(Set(streams.compactMap { $0["aesKey"]?.stringValue }).count == 1)
        #expect(Set(streams.compactMap { $0["aesIvMask"]?.stringValue }).count == 1)
        #expect(offer.streams[0].key == offer.streams[1].key)
    }

    /// VP9 beside VP8 in one OFFER, as Chrome's mirroring offers them
    /// (openscreen_session_host.cc `NegotiateMirroring`: VP9 first): indexes
    /// counting up, an SSRC each, VP9's codecParameter; the ANSWER's pick
    /// decides the codec the session encodes.
    @Test func vp9IsOfferedBesideVP8AndTheAnswerPicksOne() throws {
        let offer = try StreamingOffer(configuration: RemoteDisplayConfiguration(), sequenceNumber: 3)
        let streams = try #require(offer.message["offer"]?["supportedStreams"]?.arrayValue)
        #expect(streams.map { $0["index"]?.intValue } == [0, 1, 2])
        #expect(streams.map { $0["codecName"]?.stringValue } == ["opus", "vp9", "vp8"])
        #expect(streams[1]["codecParameter"]?.stringValue == "vp09.00.40.08")
        #expect(streams[2]["codecParameter"] == nil)
        #expect(Set(offer.streams.map(\.ssrc)).count == 3)
        for (picked, codec) in [(1, VideoCodec.vp9), (2, .vp8)] {
            let answer = try StreamingAnswer(
                [
                    "type": "ANSWER", "result": "ok",
                    "answer": [
                        "udpPort": 2344, "sendIndexes": [0, .integer(picked)],
                        "ssrcs": [
                            .integer(Int(offer.streams[0].ssrc) + 1), .integer(Int(offer.streams[picked].ssrc) + 1),
                        ],
                    ],
                ], offer: offer)
            #expect(answer.configuration.videoCodec == codec)
            #expect(answer.streams.map(\.ssrc) == [offer.streams[0].ssrc, offer.streams[picked].ssrc])
        }
        let above1080p30 = try StreamingOffer(
            configuration: RemoteDisplayConfiguration(resolutions: [.hd1080], maximumFrameRate: 60), sequenceNumber: 4)
        #expect(
            above1080p30.message["offer"]?["supportedStreams"]?.arrayValue?[1]["codecParameter"]?.stringValue
                == "vp09.00.41.08")
    }

    // MARK: Row 9: the ANSWER's display and pixel-rate limit

    func answer(_ extra: [String: JSONValue], offer: StreamingOffer) throws -> StreamingAnswer {
        var answer: [String: JSONValue] = [
            "udpPort": 2344, "sendIndexes": [0, 1],
            "ssrcs": .array(offer.streams.prefix(2).map { .integer(Int($0.ssrc) + 1) }),
        ]
        for (key, value) in extra { answer[key] = value }
        return try StreamingAnswer(["type": "ANSWER", "result": "ok", "answer": .object(answer)], offer: offer)
    }

    /// Conformance 073 (a Google TV): a 16:9 4K display that the sender must
    /// fit; 1280×720 already has its shape, so nothing is letterboxed.
    @Test func aDisplayOfTheSameShapeNeedsNoLetterbox() throws {
        let offer = try StreamingOffer(configuration: RemoteDisplayConfiguration(), sequenceNumber: 2)
        let answer = try self.answer(
            [
                "display": [
                    "dimensions": ["frameRate": "60", "height": 2_160, "width": 3_840], "scaling": "sender",
                ]
            ], offer: offer)
        #expect(answer.letterbox == nil)
        #expect(answer.configuration.resolution == .hd720)
        #expect(answer.configuration.maximumFrameRate == 30)
    }

    /// A 4:3 display that does not scale: 1280×720 goes out in 1280×960
    /// frames, the picture in the middle, black bars above and below.
    @Test func aFourByThreeDisplayThatDoesNotScaleIsLetterboxed() throws {
        let offer = try StreamingOffer(configuration: RemoteDisplayConfiguration(), sequenceNumber: 3)
        let display: JSONValue = [
            "dimensions": ["width": 1_024, "height": 768, "frameRate": "30"], "aspectRatio": "4:3",
            "scaling": "sender",
        ]
        let answer = try self.answer(["display": display], offer: offer)
        let letterbox = try #require(answer.letterbox)
        // Capped by the display's 1024×768: the picture is 1024×576 at y 96.
        #expect(letterbox.frameSize == RemoteDisplayConfiguration.Resolution(width: 1_024, height: 768))
        #expect(letterbox.content == VideoLetterbox.Rectangle(x: 0, y: 96, width: 1_024, height: 576))

        var scaling = display
        if case .object(var fields) = scaling {
            fields["scaling"] = "receiver"
            scaling = .object(fields)
        }
        #expect(try self.answer(["display": scaling], offer: offer).letterbox == nil)
    }

    /// `maxPixelsPerSecond` lowers the frame rate so width × height × rate fits.
    @Test func thePixelRateLimitLowersTheFrameRate() throws {
        let offer = try StreamingOffer(configuration: RemoteDisplayConfiguration(), sequenceNumber: 4)
        let constraints: JSONValue = [
            "video": ["maxPixelsPerSecond": .number(Double(1_280 * 720 * 15)), "maxBitRate": 5_000_000]
        ]
        let answer = try self.answer(["constraints": constraints], offer: offer)
        #expect(answer.configuration.maximumFrameRate == 15)
        #expect(answer.configuration.resolution == .hd720)
    }

    /// Found by `make fuzz` (its input is in Tests/Fuzz/OfferAnswer/Corpus/crash-huge-frame-rate):
    /// a 90-digit frame rate or a huge pixel rate trapped the conversion to Int.
    @Test func hugeNumbersInAnAnswerDoNotTrap() throws {
        let offer = try StreamingOffer(configuration: RemoteDisplayConfiguration(), sequenceNumber: 6)
        let constraints: JSONValue = [
            "video": [
                "maxDimensions": [
                    "width": 1_920, "height": 1_080, "frameRate": .string("3" + String(repeating: "0", count: 90)),
                ],
                "maxPixelsPerSecond": .number(1e300),
            ]
        ]
        let answer = try self.answer(["constraints": constraints], offer: offer)
        #expect(answer.configuration.maximumFrameRate == 30)
    }

    /// Row 13 and conformance 071: an ANSWER typed in lower case and without
    /// `seqNum` answers the offer waiting for it.
    @Test func anAnswerWithoutSequenceNumberOrUpperCaseIsTaken() throws {
        let json: JSONValue = [
            "answer": ["sendIndexes": [0, 1], "ssrcs": [306_349, 866_108], "udpPort": 36_916], "result": "ok",
            "type": "answer",
        ]
        #expect(json.messageType == "ANSWER")
        let offer = try StreamingOffer(configuration: RemoteDisplayConfiguration(), sequenceNumber: 5)
        let answer = try StreamingAnswer(json, offer: offer)
        #expect(answer.streams.map(\.receiverSSRC) == [306_349, 866_108])
    }
}
