import Foundation

/// What a receiver's HLS player reads of a playlist (RFC 8216): a media
/// playlist's segments with where each starts, or a master playlist's
/// variant streams. Tags it does not use are skipped, as players skip
/// them; at most ``maximumBytes`` and ``maximumSegments`` are read.
package struct HLSPlaylist: Sendable, Hashable {
    /// One media segment.
    package struct Segment: Sendable, Hashable {
        /// Where it starts, seconds from the playlist's start.
        package var start: Double
        /// Its `#EXTINF` duration, seconds.
        package var duration: Double
        /// Its URI as written (relative to the playlist's URL, or absolute).
        package var uri: String
    }

    /// An alternative sound of a master playlist (`#EXT-X-MEDIA` of type AUDIO with a URI).
    package struct Rendition: Sendable, Hashable {
        /// The group its variants name (`GROUP-ID`).
        package var group: String
        /// Its language (`LANGUAGE`), if given.
        package var language: String?
        /// Its name (`NAME`).
        package var name: String
        /// Whether a player picks it when nothing else is asked for (`DEFAULT=YES`).
        package var isDefault: Bool
        /// Its media playlist's URI as written.
        package var uri: String
    }

    /// The media segments, in order; empty for a master playlist.
    package var segments: [Segment] = []
    /// A master playlist's variant streams' URIs, in order (`#EXT-X-STREAM-INF`).
    package var variants: [String] = []
    /// The audio group each variant names (its `AUDIO` attribute), in the order of ``variants``.
    package var variantAudioGroups: [String?] = []
    /// A master playlist's audio renditions, in order (at most 64).
    package var audioRenditions: [Rendition] = []
    /// The initialization segment's URI (`#EXT-X-MAP`) that fragmented MP4 segments play after, if any.
    package var initialization: String?
    /// Whether `#EXT-X-ENDLIST` closes it (video on demand, not live).
    package var isComplete = false

    /// The largest playlist read: 4 MiB.
    package static let maximumBytes = 4 << 20
    /// The most segments read.
    package static let maximumSegments = 100_000

    /// Why a playlist could not be read.
    package enum ReadError: Error, Sendable, Hashable {
        /// It does not start with `#EXTM3U`.
        case notAPlaylist
        /// It is larger than ``maximumBytes``.
        case tooLarge
        /// It has neither segments nor variants.
        case empty
    }

    /// Reads `bytes` (UTF-8).
    package init(bytes: [UInt8]) throws(ReadError) {
        guard bytes.count <= Self.maximumBytes else { throw .tooLarge }
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.split(omittingEmptySubsequences: true) { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
            .makeIterator()
        guard lines.next()?.trimmingCharacters(in: .whitespaces).hasPrefix("#EXTM3U") == true else {
            throw .notAPlaylist
        }
        var pendingDuration: Double?
        var pendingVariant: String?? = nil
        var start = 0.0
        while let raw = lines.next() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#EXTINF:") {
                // "#EXTINF:<duration>,[<title>]"
                let value = line.dropFirst(8).prefix { $0 != "," }
                pendingDuration = Double(value).flatMap { $0.isFinite && $0 >= 0 && $0 < 1e6 ? $0 : nil } ?? 0
            } else if line.hasPrefix("#EXT-X-STREAM-INF:") {
                pendingVariant = .some(Self.attributes(line.dropFirst(18))["AUDIO"])
            } else if line.hasPrefix("#EXT-X-MAP:") {
                self.initialization = self.initialization ?? Self.attributes(line.dropFirst(11))["URI"]
            } else if line.hasPrefix("#EXT-X-MEDIA:") {
                if let rendition = Self.audioRendition(Self.attributes(line.dropFirst(13))),
                    self.audioRenditions.count < 64
                {
                    self.audioRenditions.append(rendition)
                }
            } else if line == "#EXT-X-ENDLIST" {
                self.isComplete = true
            } else if line.hasPrefix("#") || line.isEmpty {
                continue
            } else if let group = pendingVariant {
                self.variants.append(line)
                self.variantAudioGroups.append(group)
                pendingVariant = nil
            } else if let duration = pendingDuration {
                guard self.segments.count < Self.maximumSegments else { break }
                self.segments.append(Segment(start: start, duration: duration, uri: line))
                start += duration
                pendingDuration = nil
            }
        }
        guard !self.segments.isEmpty || !self.variants.isEmpty else { throw .empty }
    }

    /// The audio renditions a variant's player chooses among: those of the
    /// first variant's group, the default first (else the first listed),
    /// as Shaka's `lib/hls/hls_parser.js` groups `EXT-X-MEDIA` tags by the
    /// variant's `AUDIO` attribute and takes `DEFAULT=YES` as primary.
    package var firstVariantSounds: [Rendition] {
        guard let group = self.variantAudioGroups.first ?? nil else { return [] }
        var sounds = self.audioRenditions.filter { $0.group == group }
        if let chosen = sounds.firstIndex(where: \.isDefault) { sounds.insert(sounds.remove(at: chosen), at: 0) }
        return sounds
    }

    /// An attribute list (RFC 8216 §4.2): `NAME=value` pairs separated by
    /// commas, a quoted value holding commas; the quotes removed.
    package static func attributes(_ text: Substring) -> [String: String] {
        var attributes: [String: String] = [:]
        var rest = text[...]
        while !rest.isEmpty, attributes.count < 64 {
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = rest[..<equals].trimmingCharacters(in: .whitespaces)
            rest = rest[rest.index(after: equals)...]
            var value: Substring
            if rest.first == "\"" {
                let body = rest.dropFirst()
                let close = body.firstIndex(of: "\"") ?? body.endIndex
                value = body[..<close]
                rest = close < body.endIndex ? body[body.index(after: close)...] : body[body.endIndex...]
            } else {
                let comma = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<comma]
                rest = rest[comma...]
            }
            if rest.first == "," { rest = rest.dropFirst() }
            attributes[name] = String(value)
        }
        return attributes
    }

    /// The audio rendition `attributes` describe; `nil` for another type or without a URI.
    private static func audioRendition(_ attributes: [String: String]) -> Rendition? {
        guard attributes["TYPE"] == "AUDIO", let group = attributes["GROUP-ID"], let uri = attributes["URI"] else {
            return nil
        }
        return Rendition(
            group: group, language: attributes["LANGUAGE"], name: attributes["NAME"] ?? "",
            isDefault: attributes["DEFAULT"] == "YES", uri: uri)
    }

    /// The segment that plays at `time` seconds: the first before the
    /// start, the last past the end; `nil` without segments.
    package func segment(at time: Double) -> Segment? {
        guard let first = self.segments.first else { return nil }
        var low = 0
        var high = self.segments.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if self.segments[middle].start <= time { low = middle } else { high = middle - 1 }
        }
        return time < first.start ? first : self.segments[low]
    }

    /// The sum of the segments' durations, seconds.
    package var duration: Double { self.segments.last.map { $0.start + $0.duration } ?? 0 }
}
