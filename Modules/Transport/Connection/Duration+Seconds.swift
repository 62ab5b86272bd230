extension Duration {
    /// The duration in seconds, as a `Double` (for rates, positions and back-off arithmetic).
    package var inSeconds: Double {
        let (seconds, attoseconds) = self.components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}
