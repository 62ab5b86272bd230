package import CastChannels
@_spi(Receiver) package import CastStreaming

/// Reads an OFFER as Open Screen's receiver does and writes the ANSWER
/// (Docs/spec/cast-streaming.md §1).
package struct StreamingNegotiation {
    /// A stream the receiver takes.
    struct SelectedStream {
        var index: Int
        var kind: MediaKind
        var ssrc: UInt32
        var payloadType: UInt8
        var timebase: Int
        var key: StreamKey
        var channels: Int
        var targetDelay: Duration
        /// The video codec (`nil` for audio).
        var codec: VideoCodec?
    }

    /// A refusal: the ANSWER's error code and description.
    package struct Refusal: Error {
        var code: Int
        var description: String
    }

    /// Open Screen's codes: 1 invalid parameter, 2 not encrypted / no usable streams.
    static let invalidParameter = 1
    static let noStreams = 2

    let sequenceNumber: Int
    let streams: [SelectedStream]

    /// Selects the first Opus stream and (unless audio only) the video
    /// stream of the most preferred codec in `videoCodecs`, as Open Screen's
    /// `SelectStream` does (receiver_session.cc:32-50); invalid streams and
    /// unknown codecs are dropped (offer_messages.cc:484-486).
    ///
    /// - Throws: ``Refusal`` when a stream lacks its AES key or mask (the
    ///   whole offer is unencrypted), or nothing is left to receive.
    package init(offer message: JSONValue, audioOnly: Bool, videoCodecs: [VideoCodec] = [.vp8]) throws(Refusal) {
        self.sequenceNumber = message["seqNum"]?.intValue ?? 0
        guard let supported = message["offer"]?["supportedStreams"]?.arrayValue else {
            throw Refusal(code: Self.invalidParameter, description: "the OFFER has no supportedStreams")
        }
        var candidates: [SelectedStream] = []
        for stream in supported {
            guard stream["aesKey"]?.stringValue != nil, stream["aesIvMask"]?.stringValue != nil else {
                throw Refusal(code: Self.noStreams, description: "streams must be encrypted (aesKey and aesIvMask)")
            }
            if let candidate = Self.parse(stream) { candidates.append(candidate) }
        }
        var selected: [SelectedStream] = []
        if let audio = candidates.first(where: { $0.kind == .audio }) { selected.append(audio) }
        if !audioOnly,
            let video = videoCodecs.lazy.compactMap({ codec in candidates.first { $0.codec == codec } }).first
        {
            selected.append(video)
        }
        guard !selected.isEmpty else {
            throw Refusal(code: Self.noStreams, description: "no stream this receiver can play")
        }
        self.streams = selected
    }

    private static func parse(_ stream: JSONValue) -> SelectedStream? {
        guard let index = stream["index"]?.intValue,
            let ssrcValue = stream["ssrc"]?.intValue, let ssrc = UInt32(exactly: ssrcValue),
            let payloadType = stream["rtpPayloadType"]?.intValue,
            (96...104).contains(payloadType) || payloadType == 127,
            let timeBase = stream["timeBase"]?.stringValue, timeBase.hasPrefix("1/"),
            let timebase = Int(timeBase.dropFirst(2)), (16_000...90_000).contains(timebase),
            let key = StreamKey(
                hexKey: stream["aesKey"]?.stringValue ?? "", hexIVMask: stream["aesIvMask"]?.stringValue ?? "")
        else { return nil }
        let kind: MediaKind
        var codec: VideoCodec?
        switch (stream["type"]?.stringValue, stream["codecName"]?.stringValue?.lowercased()) {
        case ("audio_source", "opus"): kind = .audio
        case ("video_source", let name?):
            guard let known = VideoCodec(rawValue: name) else { return nil }
            // A VP9 codecParameter must be a vp09 string (offer_messages.cc:35-45).
            if known == .vp9, let parameter = stream["codecParameter"]?.stringValue, !parameter.isEmpty,
                !parameter.hasPrefix("vp09")
            {
                return nil
            }
            kind = .video
            codec = known
        default: return nil
        }
        var delay = stream["targetDelay"]?.intValue ?? 400
        if !(1...5_000).contains(delay) { delay = 400 }
        return SelectedStream(
            index: index, kind: kind, ssrc: ssrc, payloadType: UInt8(payloadType), timebase: timebase, key: key,
            channels: stream["channels"]?.intValue ?? 2, targetDelay: .milliseconds(delay), codec: codec)
    }

    /// The ANSWER accepting the selected streams on `port`, shaped as Open
    /// Screen's `Answer::ToJson` (answer_messages.cc:541-569): ssrcs are the
    /// offered ones + 1 (receiver_session.cc:514, :577), `rtpExtensions` and
    /// `receiverRtcpEventLog` are left out when empty, no `castMode`.
    package func answer(
        port: Int, constraints: StreamingReceiverConfiguration.Constraints?,
        display: StreamingReceiverConfiguration.Display?
    ) -> JSONValue {
        var answer: [String: JSONValue] = [
            "udpPort": .integer(port),
            "sendIndexes": .array(self.streams.map { .integer($0.index) }),
            "ssrcs": .array(self.streams.map { .integer(Int($0.ssrc &+ 1)) }),
        ]
        if let constraints { answer["constraints"] = Self.json(constraints) }
        if let display { answer["display"] = Self.json(display) }
        return ["type": "ANSWER", "seqNum": .integer(self.sequenceNumber), "result": "ok", "answer": .object(answer)]
    }

    /// `display` as Open Screen writes it (answer_messages.cc:401-417;
    /// `frameRate` a string, resolution.cc:111-119).
    private static func json(_ display: StreamingReceiverConfiguration.Display) -> JSONValue {
        var json: [String: JSONValue] = [
            "dimensions": [
                "width": .integer(display.width), "height": .integer(display.height),
                "frameRate": .string("\(display.frameRate)"),
            ],
            "scaling": .string(display.scaling.rawValue),
        ]
        if let ratio = display.aspectRatio { json["aspectRatio"] = .string("\(ratio.width):\(ratio.height)") }
        return .object(json)
    }

    /// An error ANSWER.
    static func refusal(sequenceNumber: Int, code: Int, description: String) -> JSONValue {
        [
            "type": "ANSWER", "seqNum": .integer(sequenceNumber), "result": "error",
            "error": ["code": .integer(code), "description": .string(description)],
        ]
    }

    private static func json(_ constraints: StreamingReceiverConfiguration.Constraints) -> JSONValue {
        var video: [String: JSONValue] = [:]
        var audio: [String: JSONValue] = [:]
        if let resolution = constraints.maximumResolution {
            var dimensions: [String: JSONValue] = [
                "width": .integer(resolution.width), "height": .integer(resolution.height),
            ]
            if let rate = constraints.maximumFrameRate { dimensions["frameRate"] = .string("\(rate)") }
            video["maxDimensions"] = .object(dimensions)
        }
        if let minimum = constraints.minimumVideoBitrate { video["minBitRate"] = .integer(minimum) }
        if let maximum = constraints.maximumVideoBitrate { video["maxBitRate"] = .integer(maximum) }
        if let maximum = constraints.maximumPixelsPerSecond { video["maxPixelsPerSecond"] = .number(maximum) }
        if let maximum = constraints.maximumAudioBitrate { audio["maxBitRate"] = .integer(maximum) }
        if let delay = constraints.maximumDelay {
            video["maxDelay"] = .integer(delay)
            audio["maxDelay"] = .integer(delay)
        }
        return ["video": .object(video), "audio": .object(audio)]
    }
}
