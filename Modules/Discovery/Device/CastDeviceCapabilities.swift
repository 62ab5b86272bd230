/// What a receiver can do: the `ca` TXT value, a decimal bitmask.
///
/// The documented bits have names. Real devices set many higher bits whose
/// meaning is not public (a Chromecast advertises `465413`); those are kept
/// in ``rawValue`` untouched, so nothing a device says is lost.
public struct CastDeviceCapabilities: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64

    /// Creates capabilities from the `ca` bitmask.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// The device shows video (bit 0).
    public static let videoOut = CastDeviceCapabilities(rawValue: 1 << 0)
    /// The device takes video input, a camera (bit 1).
    public static let videoIn = CastDeviceCapabilities(rawValue: 1 << 1)
    /// The device plays audio (bit 2).
    public static let audioOut = CastDeviceCapabilities(rawValue: 1 << 2)
    /// The device takes audio input, a microphone (bit 3).
    public static let audioIn = CastDeviceCapabilities(rawValue: 1 << 3)
    /// The device is in developer mode (bit 4).
    public static let developerMode = CastDeviceCapabilities(rawValue: 1 << 4)
    /// The device is a multizone group of speakers (bit 5).
    public static let multizoneGroup = CastDeviceCapabilities(rawValue: 1 << 5)

    /// The named bits present, then the others as one number: `videoOut, audioOut, +465408`.
    public var description: String {
        let named: [(CastDeviceCapabilities, String)] = [
            (.videoOut, "videoOut"), (.videoIn, "videoIn"), (.audioOut, "audioOut"),
            (.audioIn, "audioIn"), (.developerMode, "developerMode"), (.multizoneGroup, "multizoneGroup"),
        ]
        var parts = named.filter { self.contains($0.0) }.map(\.1)
        let unnamed = self.rawValue & ~0x3F
        if unnamed != 0 { parts.append("+\(unnamed)") }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }
}
