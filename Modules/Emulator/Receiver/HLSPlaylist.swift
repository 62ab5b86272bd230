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

    /// The media segments, in order; empty for a master playlist.
    package var segments: [Segment] = []
    /// A master playlist's variant streams' URIs, in order (`#EXT-X-STREAM-INF`).
    package var variants: [String] = []
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
        var pendingVariant = false
        var start = 0.0
        while let raw = lines.next() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#EXTINF:") {
                // "#EXTINF:<duration>,[<title>]"
                let value = line.dropFirst(8).prefix { $0 != "," }
                pendingDuration = Double(value).flatMap { $0.isFinite && $0 >= 0 && $0 < 1e6 ? $0 : nil } ?? 0
            } else if line.hasPrefix("#EXT-X-STREAM-INF") {
                pendingVariant = true
            } else if line == "#EXT-X-ENDLIST" {
                self.isComplete = true
            } else if line.hasPrefix("#") || line.isEmpty {
                continue
            } else if pendingVariant {
                self.variants.append(line)
                pendingVariant = false
            } else if let duration = pendingDuration {
                guard self.segments.count < Self.maximumSegments else { break }
                self.segments.append(Segment(start: start, duration: duration, uri: line))
                start += duration
                pendingDuration = nil
            }
        }
        guard !self.segments.isEmpty || !self.variants.isEmpty else { throw .empty }
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
