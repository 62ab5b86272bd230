public import CastDiscovery
public import CastTransport

extension CastSpeakersFile {
    /// These settings with each one `other` gives in their place: how a
    /// command line's options override the settings file (`only` and
    /// `group` as wholes, each other setting by itself).
    public func overridden(by other: CastSpeakersFile) -> CastSpeakersFile {
        var merged = self
        if !other.only.isEmpty { merged.only = other.only }
        if !other.groups.isEmpty { merged.groups = other.groups }
        merged.soundServer = other.soundServer ?? self.soundServer
        merged.gracePeriod = other.gracePeriod ?? self.gracePeriod
        merged.bitrate = other.bitrate ?? self.bitrate
        merged.targetDelay = other.targetDelay ?? self.targetDelay
        return merged
    }
}

extension CastSpeakersConfiguration {
    /// The configuration `settings` describe, each setting left out at its
    /// default: the devices named by ``CastSpeakersFile/only`` (by friendly
    /// name or id, either case) — a device known by its address alone even
    /// before its records say it has sound — or every device with sound.
    public init(settings: CastSpeakersFile, connection: CastConnectionConfiguration = CastConnectionConfiguration()) {
        self.init(
            soundServer: settings.soundServer, gracePeriod: settings.gracePeriod ?? .seconds(15),
            bitrate: settings.bitrate ?? 128_000, targetDelay: settings.targetDelay ?? .milliseconds(400),
            includes: Self.devices(named: settings.only), groups: settings.groups, connection: connection)
    }

    /// Which devices get a sink when `names` (friendly names or ids, either
    /// case) are the ones asked for: those, or with none every device with
    /// sound; a device known by its address alone is taken before its
    /// records say it has sound.
    public static func devices(named names: [String]) -> @Sendable (CastDevice) -> Bool {
        let wanted = Set(names.map { $0.lowercased() })
        return { device in
            (device.source == .knownHost || device.capabilities.contains(.audioOut))
                && (wanted.isEmpty || wanted.contains(device.friendlyName.lowercased())
                    || wanted.contains(device.id.lowercased()))
        }
    }
}
