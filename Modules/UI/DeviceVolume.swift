public import CastChannels

/// The device's volume as a slider or volume keys see it.
public struct DeviceVolume: Sendable, Hashable {
    /// The level, 0–1.
    public var level: Double
    /// Whether the device is muted.
    public var isMuted: Bool
    /// Whether the level is fixed (a TV's own volume over CEC, say): the
    /// slider shows it but cannot move it.
    public var isFixed: Bool
    /// How far one press of a volume key moves the level: the receiver's
    /// `stepInterval`, or the SDK's 0.05 when it reports none.
    public var stepInterval: Double
    /// Whether the volume can be changed now: connected and not fixed.
    public var isEnabled: Bool

    /// No device: nothing to show or change.
    public static let unavailable = DeviceVolume(
        level: 0, isMuted: false, isFixed: false, stepInterval: Self.defaultStepInterval, isEnabled: false)

    /// The step when the receiver reports none (the SDK's `GCKCastOptions` default).
    public static let defaultStepInterval = 0.05

    /// Creates a volume.
    public init(level: Double, isMuted: Bool, isFixed: Bool, stepInterval: Double, isEnabled: Bool) {
        self.level = level
        self.isMuted = isMuted
        self.isFixed = isFixed
        self.stepInterval = stepInterval
        self.isEnabled = isEnabled
    }

    /// The volume a receiver reports; `isConnected` when the session can send commands.
    public init(_ volume: ReceiverVolume, isConnected: Bool) {
        let isFixed = volume.controlType == .fixed
        let step = volume.stepInterval ?? 0
        self.init(
            level: volume.level ?? 0, isMuted: volume.isMuted ?? false, isFixed: isFixed,
            stepInterval: step > 0 && step <= 1 ? step : Self.defaultStepInterval, isEnabled: isConnected && !isFixed)
    }

    /// The level `steps` key presses from `level` (this volume's by
    /// default), within 0–1 and rounded to a millionth so steps add up exactly.
    public func level(afterSteps steps: Int, from level: Double? = nil) -> Double {
        let stepped = (level ?? self.level) + Double(steps) * self.stepInterval
        return min(max((stepped * 1_000_000).rounded() / 1_000_000, 0), 1)
    }
}
