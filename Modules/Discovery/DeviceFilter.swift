/// Which devices the list shows: the SDK's filter criteria.
///
/// Whether a device can run a given app is known only after connecting and
/// asking its receiver; ``isIncluded`` is where the session layer plugs such
/// a check in.
public struct DeviceFilter: Sendable {
    /// Capabilities a device must have all of, such as `[.videoOut, .audioOut]`.
    public var requiredCapabilities: CastDeviceCapabilities
    /// A further check, or `nil` for none. Called on discovery's event loop: keep it quick.
    public var isIncluded: (@Sendable (CastDevice) -> Bool)?

    /// Creates a filter; the default lets every device through.
    public init(
        requiredCapabilities: CastDeviceCapabilities = [],
        isIncluded: (@Sendable (CastDevice) -> Bool)? = nil
    ) {
        self.requiredCapabilities = requiredCapabilities
        self.isIncluded = isIncluded
    }

    /// Whether `device` passes.
    public func accepts(_ device: CastDevice) -> Bool {
        device.capabilities.isSuperset(of: self.requiredCapabilities) && (self.isIncluded?(device) ?? true)
    }
}
