extension RemoteDisplayConfiguration.Resolution: LosslessStringConvertible {
    /// Reads `1280x720` (or `1280×720`, as ``description`` writes it): two
    /// positive whole numbers; `nil` for anything else. What sizes a
    /// session takes is checked when it starts.
    public init?(_ description: String) {
        let sides = description.lowercased().split(separator: "x", omittingEmptySubsequences: false)
            .flatMap { $0.split(separator: "×", omittingEmptySubsequences: false) }
        guard sides.count == 2, let width = Int(sides[0]), let height = Int(sides[1]), width > 0, height > 0 else {
            return nil
        }
        self.init(width: width, height: height)
    }
}

extension RemoteDisplayConfiguration.Latency: LosslessStringConvertible {
    /// Reads `low`, `normal`, `smooth` (any letter case), or a fixed delay
    /// in whole milliseconds, 1…5000; `nil` for anything else.
    public init?(_ description: String) {
        switch description.lowercased() {
        case "low": self = .low
        case "normal": self = .normal
        case "smooth": self = .smooth
        default:
            guard let milliseconds = Int(description),
                RemoteDisplayConfiguration.targetDelayRange.contains(.milliseconds(milliseconds))
            else { return nil }
            self = .fixed(.milliseconds(milliseconds))
        }
    }

    /// `low`, `normal`, `smooth`, or the fixed delay in whole milliseconds (`250`).
    public var description: String {
        switch self {
        case .low: "low"
        case .normal: "normal"
        case .smooth: "smooth"
        case .fixed(let delay): "\(Int((delay / .milliseconds(1)).rounded()))"
        }
    }
}
