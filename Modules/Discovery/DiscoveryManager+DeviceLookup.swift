public import CastLogging

extension DiscoveryManager {
    /// The device a person named: `text` itself when it is an address
    /// (``CastDeviceAddress``; nothing is sent), else the first device
    /// discovery finds whose friendly name or id is `text` (either case),
    /// browsing with `configuration` for at most `timeout`.
    ///
    /// - Throws: ``DiscoveryError`` — ``DiscoveryError/Code/malformedAddress``
    ///   when `text` has an address's shape but is none (`host:port`),
    ///   ``DiscoveryError/Code/deviceNotFound`` when no device of that name
    ///   answers in time or the one found has no address, and what
    ///   ``firstDevice(named:configuration:within:logger:)`` throws.
    public static func device(
        _ text: String, configuration: DiscoveryConfiguration = DiscoveryConfiguration(),
        within timeout: Duration, logger: CastLogger = .shared
    ) async throws -> CastDevice {
        if let address = CastDeviceAddress(text) { return CastDevice(knownHost: address) }
        guard !CastDeviceAddress.looksLikeAddress(text) else {
            throw DiscoveryError(
                .malformedAddress, "'\(text)' is not HOST, HOST:PORT or [IPv6]:PORT with an IP address")
        }
        let found = try await Self.firstDevice(
            named: text, configuration: configuration, within: timeout, logger: logger)
        guard let found else {
            throw DiscoveryError(
                .deviceNotFound, "no device named or with id \"\(text)\" answered within \(timeout / .seconds(1)) s")
        }
        guard !found.addresses.isEmpty else {
            throw DiscoveryError(.deviceNotFound, "\(found.friendlyName) was found with no address")
        }
        return found
    }
}
