public import CastRemoteDisplay

extension RemoteDisplayConfiguration.Resolution {
    /// The resolution to offer for a captured source of this size: scaled
    /// down, aspect ratio kept, to fit within `limit`; a source smaller than
    /// `Resolution.smallest` (a small window) scaled up until both
    /// sides reach it; even sides, as 4:2:0 frames need. A source of
    /// extreme shape may not keep its aspect within both bounds: the
    /// capture then letterboxes it.
    public func scaledToFit(within limit: Self) -> Self {
        let width = Double(max(self.width, 1))
        let height = Double(max(self.height, 1))
        let smallest = Self.smallest
        var scale = min(Double(limit.width) / width, Double(limit.height) / height, 1)
        if width * scale < Double(smallest.width) || height * scale < Double(smallest.height) {
            scale = max(Double(smallest.width) / width, Double(smallest.height) / height)
        }
        func side(_ length: Double, _ minimum: Int, _ maximum: Int) -> Int {
            min(max(Int(length.rounded()), minimum), max(maximum, minimum)) & ~1
        }
        return Self(
            width: side(width * scale, smallest.width, limit.width),
            height: side(height * scale, smallest.height, limit.height))
    }
}
