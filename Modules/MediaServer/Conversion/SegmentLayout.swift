import Foundation

/// Where each HLS segment of a converted film begins and ends, fixed
/// before any is made: the VOD playlist lists every segment and the whole
/// duration from the start, so a receiver shows the length and can seek
/// anywhere while ffmpeg is still near the beginning.
///
/// A transcoded video (or a film without video) is cut every
/// ``targetLength`` seconds; ffmpeg is told to put a key frame on each
/// boundary. A copied video can only be cut at its own key frames: a
/// segment ends at the first key frame at least ``targetLength`` after it
/// began, as media servers cut copied streams (Jellyfin's key-frame
/// extraction does the same), so segments are as long as the file's GOPs
/// make them.
package struct SegmentLayout: Sendable, Hashable {
    /// The length segments are cut to, seconds: Apple's HLS authoring
    /// guidance (6 s), which Cast's HLS player reads like any other.
    package static let targetLength = 6.0

    /// Each segment's start, seconds from the film's start; the first is 0.
    package let starts: [Double]
    /// The film's duration, seconds: the last segment's end.
    package let duration: Double

    /// Cuts `duration` seconds: at `keyFrames` (presentation times, seconds)
    /// when the video is copied, every ``targetLength`` seconds when `nil`.
    /// Key frames out of order, out of the film or not finite are ignored.
    package init(duration: Double, keyFrames: [Double]? = nil) {
        let duration = duration.isFinite ? max(duration, 0) : 0
        self.duration = duration
        var starts = [0.0]
        if let keyFrames {
            for time in keyFrames where time.isFinite && time < duration {
                // A sliver at the end would be a segment of its own: it joins the last.
                if time >= starts[starts.count - 1] + Self.targetLength, duration - time >= 0.5 {
                    starts.append(time)
                }
            }
        } else {
            var next = Self.targetLength
            while duration - next >= 0.5 {
                starts.append(next)
                next += Self.targetLength
            }
        }
        self.starts = starts
    }

    /// How many segments there are.
    package var count: Int { self.starts.count }

    /// Where segment `index` begins and ends, seconds.
    package func bounds(of index: Int) -> (start: Double, end: Double) {
        (self.starts[index], index + 1 < self.starts.count ? self.starts[index + 1] : self.duration)
    }

    /// The segment that plays at `time` seconds (the first before 0, the last past the end).
    package func index(containing time: Double) -> Int {
        var low = 0
        var high = self.starts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if self.starts[middle] <= time { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The VOD media playlist (RFC 8216): every segment, named by
    /// `segmentName`, with its duration; `#EXT-X-ENDLIST` from the start.
    /// With `map`, the segments are fragmented MP4 and `map` names their
    /// initialization segment (`#EXT-X-MAP`, version 7 as RFC 8216 §7 asks
    /// of a playlist with fragmented MP4 segments).
    package func playlist(map: String? = nil, segmentName: (Int) -> String) -> String {
        let lengths = (0..<self.count).map { self.bounds(of: $0).end - self.bounds(of: $0).start }
        // Each EXTINF, rounded to the nearest integer, at most the target duration (RFC 8216 §4.3.3.1).
        let target = max(1, Int((lengths.max() ?? 0).rounded()))
        var text = """
            #EXTM3U
            #EXT-X-VERSION:\(map == nil ? 3 : 7)
            #EXT-X-TARGETDURATION:\(target)
            #EXT-X-MEDIA-SEQUENCE:0
            #EXT-X-PLAYLIST-TYPE:VOD

            """
        if let map { text += "#EXT-X-MAP:URI=\"\(map)\"\n" }
        for (index, length) in lengths.enumerated() {
            text += "#EXTINF:\(String(format: "%.6f", length)),\n\(segmentName(index))\n"
        }
        return text + "#EXT-X-ENDLIST\n"
    }
}
