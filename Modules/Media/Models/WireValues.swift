/// The media namespace's string enumerations (Docs/spec/castv2-control.md §4,
/// Media). Each is a struct over its wire string rather than a closed enum:
/// receivers add values, and a status with one this version does not know
/// must still decode. Compare against the static members.

/// How the media is delivered (`streamType`).
public struct MediaStreamType: RawRepresentable, Codable, Hashable, Sendable {
    /// The wire string.
    public let rawValue: String
    /// Wraps a wire string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Neither buffered nor live.
    public static let none = MediaStreamType(rawValue: "NONE")
    /// A file or on-demand stream with a duration.
    public static let buffered = MediaStreamType(rawValue: "BUFFERED")
    /// A live stream; its duration is -1.
    public static let live = MediaStreamType(rawValue: "LIVE")

    /// Reads the wire string — or a number, which some receivers echo when a
    /// sender sent an enum ordinal (conformance 050, 059). Senders number
    /// their enums differently, so the number is kept as it came ("1").
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self.rawValue = text
        } else {
            self.rawValue = String(try container.decode(Int.self))
        }
    }

    /// Writes the wire string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.rawValue)
    }
}

/// What the player is doing (`playerState`).
public struct PlayerState: RawRepresentable, Codable, Hashable, Sendable {
    /// The wire string.
    public let rawValue: String
    /// Wraps a wire string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Nothing plays; ``MediaStatus/idleReason`` says why.
    public static let idle = PlayerState(rawValue: "IDLE")
    /// Playing.
    public static let playing = PlayerState(rawValue: "PLAYING")
    /// Paused.
    public static let paused = PlayerState(rawValue: "PAUSED")
    /// Waiting for data.
    public static let buffering = PlayerState(rawValue: "BUFFERING")
    /// Loading (reported only inside `extendedStatus`).
    public static let loading = PlayerState(rawValue: "LOADING")
}

/// Why the player is idle (`idleReason`).
public struct IdleReason: RawRepresentable, Codable, Hashable, Sendable {
    /// The wire string.
    public let rawValue: String
    /// Wraps a wire string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// A sender stopped playback.
    public static let cancelled = IdleReason(rawValue: "CANCELLED")
    /// A new load replaced the media.
    public static let interrupted = IdleReason(rawValue: "INTERRUPTED")
    /// The media played to its end.
    public static let finished = IdleReason(rawValue: "FINISHED")
    /// Playback failed.
    public static let error = IdleReason(rawValue: "ERROR")
}

/// How a queue repeats (`repeatMode`).
public struct RepeatMode: RawRepresentable, Codable, Hashable, Sendable {
    /// The wire string.
    public let rawValue: String
    /// Wraps a wire string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Stop after the last item.
    public static let off = RepeatMode(rawValue: "REPEAT_OFF")
    /// Start again after the last item.
    public static let all = RepeatMode(rawValue: "REPEAT_ALL")
    /// Repeat the current item.
    public static let single = RepeatMode(rawValue: "REPEAT_SINGLE")
    /// Start again after the last item, shuffling each time.
    public static let allAndShuffle = RepeatMode(rawValue: "REPEAT_ALL_AND_SHUFFLE")
}

/// How an HLS stream's audio is packaged (`hlsSegmentFormat`): what the
/// receiver's HLS player expects before it reads a segment. Wire strings
/// as the Android Cast SDK's `HlsSegmentFormat` constants.
public struct HLSSegmentFormat: RawRepresentable, Codable, Hashable, Sendable {
    /// The wire string.
    public let rawValue: String
    /// Wraps a wire string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// AAC packed audio elementary stream.
    public static let aac = HLSSegmentFormat(rawValue: "aac")
    /// AC-3 packed audio elementary stream.
    public static let ac3 = HLSSegmentFormat(rawValue: "ac3")
    /// MP3 packed audio elementary stream.
    public static let mp3 = HLSSegmentFormat(rawValue: "mp3")
    /// MPEG-2 transport stream.
    public static let ts = HLSSegmentFormat(rawValue: "ts")
    /// AAC in an MPEG-2 transport stream.
    public static let tsAAC = HLSSegmentFormat(rawValue: "ts_aac")
    /// E-AC-3 packed audio elementary stream.
    public static let eac3 = HLSSegmentFormat(rawValue: "e-ac3")
    /// Audio in CMAF fragmented MP4.
    public static let fmp4 = HLSSegmentFormat(rawValue: "fmp4")
}

/// How an HLS stream's video is packaged (`hlsVideoSegmentFormat`). Wire
/// strings as the Android Cast SDK's `HlsVideoSegmentFormat` constants.
public struct HLSVideoSegmentFormat: RawRepresentable, Codable, Hashable, Sendable {
    /// The wire string.
    public let rawValue: String
    /// Wraps a wire string.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// MPEG-2 transport stream: H.264 only.
    public static let mpeg2TS = HLSVideoSegmentFormat(rawValue: "mpeg2_ts")
    /// CMAF fragmented MP4: H.264 and HEVC.
    public static let fmp4 = HLSVideoSegmentFormat(rawValue: "fmp4")
}
