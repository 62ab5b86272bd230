/// Lowers the encoded resolution, then the frame rate, when the bitrate the
/// path carries is too low for a clean picture at the current ones, and
/// raises them again when bandwidth returns: what Chrome's mirroring does
/// with its auto-throttled capture (`media/capture/content/video_capture_oracle.cc`
/// and `capture_resolution_chooser.cc`: the size steps down under pressure
/// and back up only after a sustained improvement).
///
/// The measure is bits per pixel of each frame, `bitrate ÷ (width × height
/// × frame rate)`. Below ``lowBitsPerPixel`` for ``downAfter`` — or with
/// frames dropping while the bitrate is already at its minimum — the next
/// level down is taken: VP8 and VP9 turn blocky there on moving pictures,
/// so fewer, sharper pixels look better than many smeared ones.
///
/// One level up is taken once, for ``upAfter`` without a dropped frame, the
/// path's usable bandwidth would give ``comfortableBitsPerPixel`` there and
/// the bitrate in force would not fall below ``lowBitsPerPixel`` there. The
/// bandwidth, not the bitrate, decides: at a lowered size the encoder often
/// needs less than its target, and the controller raises only a target that
/// is used. A step up that congestion undoes within ``probeWindow`` doubles
/// the wait before the next (up to ``longestUpDelay``), so a path that
/// cannot carry the larger size is probed ever more rarely.
///
/// The levels: the negotiated size, then ¾, ½, ⅜ of it (never narrower than
/// ``minimumWidth``), all at the negotiated frame rate; then, at the
/// smallest size, ⅔, ½ and ⅓ of the frame rate (never below 5).
package struct VideoAdaptation {
    /// One step of the ladder: a scale of the negotiated size and a frame rate.
    struct Level: Equatable {
        var scale: Double
        var frameRate: Int
    }

    static let lowBitsPerPixel = 0.04
    static let comfortableBitsPerPixel = 0.07
    static let downAfter: Duration = .seconds(1)
    static let upAfter: Duration = .seconds(3)
    static let probeWindow: Duration = .seconds(10)
    static let longestUpDelay: Duration = .seconds(30)
    static let minimumWidth = 320
    static let minimumFrameRate = 5

    /// The negotiated size, the top of the ladder.
    let size: RemoteDisplayConfiguration.Resolution
    let levels: [Level]
    /// The controller's lowest bitrate: drops there mean even it is too much.
    let minimumBitrate: Int
    private(set) var index = 0
    private var lowSince: HostTime?
    private var comfortableSince: HostTime?
    private(set) var upDelay = VideoAdaptation.upAfter
    private var lastUp: HostTime?

    /// A ladder for `size` at `frameRate` above `minimumBitrate`; only the
    /// top level when `enabled` is false.
    init(size: RemoteDisplayConfiguration.Resolution, frameRate: Int, minimumBitrate: Int, enabled: Bool) {
        self.size = size
        self.minimumBitrate = minimumBitrate
        var levels = [Level(scale: 1, frameRate: frameRate)]
        if enabled {
            for scale in [0.75, 0.5, 0.375] where Double(size.width) * scale >= Double(Self.minimumWidth) {
                levels.append(Level(scale: scale, frameRate: frameRate))
            }
            let smallest = levels[levels.count - 1].scale
            for rate in [frameRate * 2 / 3, frameRate / 2, frameRate / 3]
            where rate >= Self.minimumFrameRate && rate < levels[levels.count - 1].frameRate {
                levels.append(Level(scale: smallest, frameRate: rate))
            }
        }
        self.levels = levels
    }

    /// The level in force.
    var level: Level { self.levels[self.index] }

    /// The frame size of `level`: the negotiated size scaled, in even pixels (4:2:0).
    func resolution(of level: Level) -> RemoteDisplayConfiguration.Resolution {
        guard level.scale < 1 else { return self.size }
        return RemoteDisplayConfiguration.Resolution(
            width: max(2, Int(Double(self.size.width) * level.scale) & ~1),
            height: max(2, Int(Double(self.size.height) * level.scale) & ~1))
    }

    /// Takes the controller's bitrate, the usable bandwidth (`nil`:
    /// unknown) and whether frames dropped since the last step, at `now`
    /// (every bitrate step, 500 ms); `true` when the level changed.
    mutating func update(bitrate: Int, usable: Int?, framesDropped: Bool, at now: HostTime) -> Bool {
        let starved =
            self.bitsPerPixel(bitrate, at: self.level) < Self.lowBitsPerPixel
            || (framesDropped && bitrate <= self.minimumBitrate)
        if self.index + 1 < self.levels.count, starved {
            self.comfortableSince = nil
            let since = self.lowSince ?? now
            self.lowSince = since
            guard since.duration(to: now) >= Self.downAfter else { return false }
            if let up = self.lastUp, up.duration(to: now) < Self.probeWindow {
                self.upDelay = min(self.upDelay * 2, Self.longestUpDelay)
            }
            self.index += 1
            self.lowSince = nil
            return true
        }
        self.lowSince = nil
        if let up = self.lastUp, up.duration(to: now) >= Self.probeWindow {
            // The last step up held: the next may come as soon as the first did.
            self.upDelay = Self.upAfter
            self.lastUp = nil
        }
        guard self.index > 0 else { return false }
        let upper = self.levels[self.index - 1]
        let comfortable =
            !framesDropped && self.bitsPerPixel(bitrate, at: upper) >= Self.lowBitsPerPixel
            && (usable.map { self.bitsPerPixel($0, at: upper) >= Self.comfortableBitsPerPixel } ?? false)
        guard comfortable else {
            self.comfortableSince = nil
            return false
        }
        let since = self.comfortableSince ?? now
        self.comfortableSince = since
        guard since.duration(to: now) >= self.upDelay else { return false }
        self.index -= 1
        self.comfortableSince = nil
        self.lastUp = now
        return true
    }

    private func bitsPerPixel(_ bitrate: Int, at level: Level) -> Double {
        let size = self.resolution(of: level)
        return Double(bitrate) / Double(size.width * size.height * level.frameRate)
    }
}
