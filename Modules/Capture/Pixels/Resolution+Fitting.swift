public import CastRemoteDisplay

extension RemoteDisplayConfiguration.Resolution {
    /// This size scaled down, aspect ratio kept, to fit within `limit`
    /// (never scaled up), with even sides as 4:2:0 frames need: the
    /// resolution to offer for a captured source.
    public func scaledToFit(within limit: Self) -> Self {
        let scale = min(Double(limit.width) / Double(self.width), Double(limit.height) / Double(self.height), 1)
        return Self(
            width: max(2, Int((Double(self.width) * scale).rounded()) & ~1),
            height: max(2, Int((Double(self.height) * scale).rounded()) & ~1))
    }
}
