package import CastChannels

/// The OFFER a session sends (Docs/spec/cast-streaming.md §1): audio first
/// (when configured), then one video stream per codec in the configuration's
/// order — indexes counting up from 0, as Open Screen's `CreateMirroringOffer`
/// numbers them (sender_session.cc:160-183) — each with a random SSRC of
/// its own, and one fresh AES key and IV mask for all streams, as Chrome's
/// mirroring session sends ("The random AES key and initialization vector
/// pair used by all streams in this session", session.cc `CreateAndSendOffer`).
package struct StreamingOffer: Sendable {
    struct Stream: Sendable {
        var index: Int
        var kind: MediaKind
        var ssrc: UInt32
        var key: StreamKey
        /// The video codec (`nil` for audio).
        var codec: VideoCodec?
    }

    let sequenceNumber: Int
    let configuration: RemoteDisplayConfiguration
    let streams: [Stream]

    /// SSRC ranges Chrome uses: audio 1…500000, video 500001…1000000.
    static let audioSSRCs: ClosedRange<UInt32> = 1...500_000
    static let videoSSRCs: ClosedRange<UInt32> = 500_001...1_000_000

    package init(configuration: RemoteDisplayConfiguration, sequenceNumber: Int) throws(CastRemoteDisplayError) {
        var streams: [Stream] = []
        let key = try StreamKey.random()
        if configuration.audio != nil {
            streams.append(Stream(index: 0, kind: .audio, ssrc: .random(in: Self.audioSSRCs), key: key))
        }
        for codec in configuration.videoCodecs {
            var ssrc = UInt32.random(in: Self.videoSSRCs)
            while streams.contains(where: { $0.ssrc == ssrc }) { ssrc = .random(in: Self.videoSSRCs) }
            streams.append(Stream(index: streams.count, kind: .video, ssrc: ssrc, key: key, codec: codec))
        }
        self.sequenceNumber = sequenceNumber
        self.configuration = configuration
        self.streams = streams
    }

    /// The OFFER message.
    var message: JSONValue {
        let delay = JSONValue.integer(Int(self.configuration.targetDelay.inNanoseconds / 1_000_000))
        let supported: [JSONValue] = self.streams.map { stream in
            var json: [String: JSONValue] = [
                "index": .integer(stream.index),
                "type": stream.kind == .audio ? "audio_source" : "video_source",
                "codecName": .string(stream.codec?.rawValue ?? "opus"),
                "rtpProfile": "cast",
                "rtpPayloadType": .integer(Int(stream.kind.payloadType)),
                "ssrc": .integer(Int(stream.ssrc)),
                "targetDelay": delay,
                "aesKey": .string(Hex.encode(stream.key.key)),
                "aesIvMask": .string(Hex.encode(stream.key.ivMask)),
                // Chrome asks for the receiver's frame logs; this sender
                // reads none, so it does not make the receiver send them.
                "receiverRtcpEventLog": false,
                "rtpExtensions": ["adaptive_playout_delay"],
            ]
            if stream.kind == .audio, let audio = self.configuration.audio {
                json["timeBase"] = .string("1/\(RemoteDisplayConfiguration.Audio.sampleRate)")
                json["channels"] = .integer(audio.channelCount)
                json["bitRate"] = .integer(audio.bitrate)
                json["sampleRate"] = .integer(RemoteDisplayConfiguration.Audio.sampleRate)
            } else {
                json["timeBase"] = "1/90000"
                json["maxFrameRate"] = .string("\(self.configuration.maximumFrameRate * 1_000)/1000")
                json["maxBitRate"] = .integer(self.configuration.maximumVideoBitrate)
                json["resolutions"] = .array(
                    self.configuration.resolutions.map { ["width": .integer($0.width), "height": .integer($0.height)] })
                json["errorRecoveryMode"] = "castv2"
                if let parameter = stream.codec?.codecParameter(
                    resolution: self.configuration.resolution, frameRate: self.configuration.maximumFrameRate)
                {
                    json["codecParameter"] = .string(parameter)
                }
                json["renderMode"] = "video"
            }
            return .object(json)
        }
        return [
            "type": "OFFER", "seqNum": .integer(self.sequenceNumber),
            "offer": ["castMode": "mirroring", "receiverGetStatus": true, "supportedStreams": .array(supported)],
        ]
    }
}

/// Why a receiver refused an OFFER: its error code and description from
/// the ANSWER (`result: "error"`). The ``CastRemoteDisplayError/cause`` of
/// an ``CastRemoteDisplayError/Code-swift.struct/offerRejected`` error.
public struct OfferRejection: Error, Sendable, Hashable, CustomStringConvertible {
    /// The receiver's error code, if it sent one.
    public var code: Int?
    /// The receiver's description, if it sent one.
    public var reason: String?

    /// Creates a rejection.
    public init(code: Int?, reason: String?) {
        self.code = code
        self.reason = reason
    }

    public var description: String {
        "receiver error \(self.code.map(String.init) ?? "without a code"): \(self.reason ?? "no description")"
    }
}

/// What the ANSWER settled: where media goes, the accepted streams, and the
/// configuration after the receiver's constraints.
package struct StreamingAnswer: Sendable {
    var udpPort: Int
    var streams: [StreamParameters]
    var configuration: RemoteDisplayConfiguration
    /// How the picture sits in the frames sent, when the receiver does not scale and its display's shape differs.
    var letterbox: VideoLetterbox?

    /// Reads an ANSWER to `offer`.
    ///
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/offerRejected`` for
    ///   `result: "error"`; ``CastRemoteDisplayError/Code-swift.struct/invalidAnswer`` for
    ///   an ANSWER without a usable port or stream lists;
    ///   ``CastRemoteDisplayError/Code-swift.struct/noAcceptableStream`` when it
    ///   accepts none of the offered streams.
    package init(_ json: JSONValue, offer: StreamingOffer) throws(CastRemoteDisplayError) {
        guard json["result"]?.stringValue == "ok" else {
            let error = json["error"]
            let rejection = OfferRejection(code: error?["code"]?.intValue, reason: error?["description"]?.stringValue)
            throw CastRemoteDisplayError(.offerRejected, "the receiver rejected the offer", cause: rejection)
        }
        guard let answer = json["answer"], let port = answer["udpPort"]?.intValue, (1...65_535).contains(port),
            let indexes = answer["sendIndexes"]?.arrayValue?.compactMap(\.intValue),
            let ssrcs = answer["ssrcs"]?.arrayValue?.compactMap(\.intValue), indexes.count == ssrcs.count
        else {
            throw CastRemoteDisplayError(.invalidAnswer, "the ANSWER lacks udpPort or parallel sendIndexes and ssrcs")
        }
        var streams: [StreamParameters] = []
        var videoCodec: VideoCodec?
        for (index, receiverSSRC) in zip(indexes, ssrcs) {
            // One stream of each kind: a second video stream answered is ignored.
            guard let offered = offer.streams.first(where: { $0.index == index }),
                let ssrc = UInt32(exactly: receiverSSRC), !streams.contains(where: { $0.kind == offered.kind })
            else { continue }
            if offered.kind == .video { videoCodec = offered.codec }
            streams.append(
                StreamParameters(
                    kind: offered.kind, ssrc: offered.ssrc, receiverSSRC: ssrc, payloadType: offered.kind.payloadType,
                    rtpTimebase: offered.kind == .audio ? RemoteDisplayConfiguration.Audio.sampleRate : 90_000,
                    key: offered.key))
        }
        guard !streams.isEmpty else {
            throw CastRemoteDisplayError(.noAcceptableStream, "the receiver accepted none of the offered streams")
        }
        self.udpPort = port
        self.streams = streams
        let display = answer["display"]
        var configuration = Self.constrained(
            offer.configuration, by: answer["constraints"], display: display,
            hasAudio: streams.contains { $0.kind == .audio })
        if let videoCodec { configuration.videoCodecs = [videoCodec] }
        self.letterbox = Self.letterbox(for: configuration, display: display, limits: answer["constraints"])
        Self.limitPixelRate(
            &configuration, encoding: self.letterbox?.frameSize ?? configuration.resolution,
            to: answer["constraints"]?["video"]?["maxPixelsPerSecond"]?.doubleValue)
        self.configuration = configuration
    }

    /// The letterbox the sender must apply: the receiver shows a display of
    /// a fixed shape (`display.aspectRatio`, else the shape of
    /// `display.dimensions`) and does not scale (`scaling` is not
    /// `"receiver"`: Open Screen answer_messages.cc:128-141 and
    /// capture_recommendations.cc:19-27; Chrome letterboxes unless the
    /// receiver scales). The frames stay within the display and `maxDimensions`.
    static func letterbox(
        for configuration: RemoteDisplayConfiguration, display: JSONValue?, limits: JSONValue?
    ) -> VideoLetterbox? {
        guard let display, display["scaling"]?.stringValue != "receiver" else { return nil }
        let dimensions = display["dimensions"]
        let shape: (Int, Int)?
        if let ratio = display["aspectRatio"]?.stringValue.flatMap(Self.aspectRatio) {
            shape = ratio
        } else if let width = dimensions?["width"]?.intValue, let height = dimensions?["height"]?.intValue {
            shape = (width, height)
        } else {
            shape = nil
        }
        guard let (aspectWidth, aspectHeight) = shape else { return nil }
        var limit: RemoteDisplayConfiguration.Resolution?
        for bound in [dimensions, limits?["video"]?["maxDimensions"]] {
            guard let width = bound?["width"]?.intValue, let height = bound?["height"]?.intValue, width > 0, height > 0
            else { continue }
            limit = RemoteDisplayConfiguration.Resolution(
                width: min(width, limit?.width ?? .max), height: min(height, limit?.height ?? .max))
        }
        return VideoLetterbox.fitting(
            configuration.resolution, aspectWidth: aspectWidth, aspectHeight: aspectHeight, within: limit)
    }

    /// Lowers the frame rate so `size` × frames per second stays within the
    /// receiver's `maxPixelsPerSecond` (Open Screen answer_messages.cc keeps
    /// it as a video constraint; `receiver_constraints.h` defaults it to
    /// 1920×1080×30), down to 1 frame per second.
    static func limitPixelRate(
        _ configuration: inout RemoteDisplayConfiguration, encoding size: RemoteDisplayConfiguration.Resolution,
        to maximum: Double?
    ) {
        guard let maximum, maximum > 0 else { return }
        guard let rate = Self.whole(maximum / Double(size.width * size.height)) else { return }
        configuration.maximumFrameRate = max(1, min(configuration.maximumFrameRate, rate))
    }

    /// "16:9" as (16, 9); `nil` unless both sides are positive integers.
    private static func aspectRatio(_ text: String) -> (Int, Int)? {
        let parts = text.split(separator: ":").compactMap { Int($0) }
        guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { return nil }
        return (parts[0], parts[1])
    }

    /// `configuration` within the ANSWER's constraints and display: the
    /// first offered resolution that fits both `maxDimensions` and the
    /// display's `dimensions` (else the first scaled down to fit), and
    /// frame rate, bitrates and delay clamped. The display caps the
    /// resolution and frame rate as Open Screen's capture_recommendations.cc
    /// `ApplyDisplay` does (:17-56).
    static func constrained(
        _ configuration: RemoteDisplayConfiguration, by constraints: JSONValue?, display: JSONValue? = nil,
        hasAudio: Bool
    ) -> RemoteDisplayConfiguration {
        var result = configuration
        if !hasAudio { result.audio = nil }
        let video = constraints?["video"]
        let bounds = [video?["maxDimensions"], display?["dimensions"]].compactMap { $0 }
        if !bounds.isEmpty {
            let maximumWidth = bounds.map { $0["width"]?.intValue ?? Int.max }.min() ?? Int.max
            let maximumHeight = bounds.map { $0["height"]?.intValue ?? Int.max }.min() ?? Int.max
            let fitting = configuration.resolutions.first { $0.width <= maximumWidth && $0.height <= maximumHeight }
            result.resolutions = [fitting ?? Self.scaled(configuration.resolution, toFit: maximumWidth, maximumHeight)]
            for bound in bounds {
                if let rate = bound["frameRate"].flatMap(Self.frameRate), rate >= 1 {
                    result.maximumFrameRate = min(result.maximumFrameRate, rate)
                }
            }
        } else {
            result.resolutions = [configuration.resolution]
        }
        if let maximum = video?["maxBitRate"]?.intValue {
            result.maximumVideoBitrate = max(
                min(result.maximumVideoBitrate, maximum), VideoEncoderConfiguration.bitrateRange.lowerBound)
        }
        if let minimum = video?["minBitRate"]?.intValue {
            result.minimumVideoBitrate = max(result.minimumVideoBitrate, minimum)
        }
        result.minimumVideoBitrate = min(result.minimumVideoBitrate, result.maximumVideoBitrate)
        var delayLimits = [video?["maxDelay"]?.intValue]
        if var audio = result.audio, let constraint = constraints?["audio"] {
            if let maximum = constraint["maxBitRate"]?.intValue { audio.bitrate = min(audio.bitrate, maximum) }
            if let minimum = constraint["minBitRate"]?.intValue { audio.bitrate = max(audio.bitrate, minimum) }
            audio.bitrate = min(
                max(audio.bitrate, OpusEncoder.bitrateRange.lowerBound), OpusEncoder.bitrateRange.upperBound)
            if let channels = constraint["maxChannels"]?.intValue, channels >= 1 {
                audio.channelCount = min(audio.channelCount, channels)
            }
            result.audio = audio
            delayLimits.append(constraint["maxDelay"]?.intValue)
        }
        for case let limit? in delayLimits where limit > 0 {
            result.targetDelay = min(result.targetDelay, .milliseconds(limit))
            if let range = result.adaptiveDelayRange {
                let upper = min(range.upperBound, .milliseconds(limit))
                result.adaptiveDelayRange = min(range.lowerBound, upper)...upper
            }
        }
        return result
    }

    /// A frame rate given as a number or a fraction string ("30000/1001").
    private static func frameRate(_ value: JSONValue) -> Int? {
        if let number = value.doubleValue { return Self.whole(number) }
        guard let text = value.stringValue else { return nil }
        let parts = text.split(separator: "/").compactMap { Double($0) }
        guard let numerator = parts.first else { return nil }
        let denominator = parts.count > 1 ? parts[1] : 1
        return denominator > 0 ? Self.whole(numerator / denominator) : nil
    }

    /// `value` as an Int in 0…1 000 000, `nil` when it is not finite or
    /// negative: a receiver's number must not trap the conversion (the
    /// fuzzer found a 90-digit frame rate).
    static func whole(_ value: Double) -> Int? {
        guard value.isFinite, value >= 0 else { return nil }
        return Int(min(value, 1_000_000))
    }

    /// `resolution` scaled down to fit, keeping its aspect, even, at least 320×240.
    private static func scaled(
        _ resolution: RemoteDisplayConfiguration.Resolution, toFit width: Int, _ height: Int
    ) -> RemoteDisplayConfiguration.Resolution {
        let scale = min(Double(width) / Double(resolution.width), Double(height) / Double(resolution.height), 1)
        let smallest = RemoteDisplayConfiguration.Resolution.smallest
        let fittedWidth = max(Int(Double(resolution.width) * scale) & ~1, smallest.width)
        let fittedHeight = max(Int(Double(resolution.height) * scale) & ~1, smallest.height)
        return RemoteDisplayConfiguration.Resolution(width: fittedWidth, height: fittedHeight)
    }
}
