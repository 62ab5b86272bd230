import Foundation

/// The HLS master playlist of a film served with its sounds as renditions
/// (RFC 8216 §4.3.4): one `EXT-X-MEDIA` audio rendition per sound stream
/// (its language, its name, the default marked) and the video variant that
/// refers to them. Shaka Player, the Web Receiver's HLS engine, offers the
/// renditions as audio tracks and fetches the one chosen.
struct MasterPlaylist {
    /// The group every rendition belongs to.
    static let group = "sound"
    /// What the video's media playlist is named beside the master playlist.
    static let videoName = "rendition-video.m3u8"

    /// What rendition `number`'s (1 for the first) media playlist is named.
    static func renditionName(_ number: Int) -> String { "rendition-a\(number).m3u8" }

    /// Whether `name` is one of the media playlists beside a master playlist.
    static func isMediaPlaylist(_ name: String) -> Bool {
        name.hasPrefix("rendition-") && name.hasSuffix(".m3u8")
    }

    /// The master playlist of `plan`'s renditions.
    static func text(of plan: ConversionPlan) -> String {
        var text = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-INDEPENDENT-SEGMENTS\n"
        for (offset, sound) in plan.soundRenditions.enumerated() {
            var attributes = ["TYPE=AUDIO", "GROUP-ID=\"\(Self.group)\""]
            if let language = sound.stream.language {
                attributes.append("LANGUAGE=\"\(Self.quoted(MediaLanguage.bcp47(language)))\"")
            }
            attributes.append("NAME=\"\(Self.quoted(sound.stream.name(number: offset + 1)))\"")
            let isDefault = sound.stream.index == plan.audio?.stream.index
            attributes += ["DEFAULT=\(isDefault ? "YES" : "NO")", "AUTOSELECT=YES"]
            if let channels = sound.transcodes ? 2 : sound.stream.channels {
                attributes.append("CHANNELS=\"\(channels)\"")
            }
            attributes.append("URI=\"\(Self.renditionName(offset + 1))\"")
            text += "#EXT-X-MEDIA:" + attributes.joined(separator: ",") + "\n"
        }
        // BANDWIDTH is required; one variant, so no player chooses by it: a 1080p H.264 film's peak.
        var variant = ["BANDWIDTH=8000000"]
        let codecs = ([plan.video.flatMap(Self.codec)] + plan.soundRenditions.map(Self.codec)).compactMap { $0 }
        if codecs.count == 1 + plan.soundRenditions.count {
            var unique: [String] = []
            for codec in codecs where !unique.contains(codec) { unique.append(codec) }
            variant.append("CODECS=\"\(unique.joined(separator: ","))\"")
        }
        variant.append("AUDIO=\"\(Self.group)\"")
        return text + "#EXT-X-STREAM-INF:" + variant.joined(separator: ",") + "\n" + Self.videoName + "\n"
    }

    /// The RFC 6381 codec of a stream as sent, when known.
    private static func codec(_ plan: ConversionPlan.StreamPlan) -> String? {
        if plan.transcodes { return plan.stream.kind == .video ? "avc1.640029" : "mp4a.40.2" }
        switch plan.stream.codec {
        case "aac":
            // AAC-LC unless ffprobe names the extension's profile.
            return ["HE-AAC": "mp4a.40.5", "HE-AACv2": "mp4a.40.29"][plan.stream.profile ?? ""] ?? "mp4a.40.2"
        case "mp3":
            return "mp4a.40.34"
        case "h264":
            let profiles = ["High": "6400", "Main": "4d40", "Baseline": "42e0", "Constrained Baseline": "42e0"]
            guard let profile = plan.stream.profile.flatMap({ profiles[$0] }), let level = plan.stream.level,
                (1...0xff).contains(level)
            else { return nil }
            return "avc1." + profile + String(format: "%02x", level)
        default:
            return nil
        }
    }

    /// `value` with the characters a quoted attribute cannot hold (RFC 8216 §4.2: no `"`, CR or LF) replaced.
    private static func quoted(_ value: String) -> String {
        String(value.map { $0 == "\"" ? "'" : ($0 == "\n" || $0 == "\r" ? " " : $0) })
    }
}
