public import CastChannels

extension RemoteDisplayChannel {
    /// Launches the Remote Display app on `link`'s device and begins a
    /// session, as ``launchSession(configuration:on:)`` does on its platform
    /// channel — but first refuses a device that discovery says has no
    /// screen (no `video_out`: a speaker, a speaker group) when
    /// `configuration` offers video: such a device never gets a video
    /// OFFER, and Chrome launches audio mirroring for it instead
    /// (Docs/spec/cast-streaming.md §6.1). A device known only by its
    /// address is tried.
    ///
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/noScreen``
    ///   before anything is launched; what ``launchSession(configuration:on:)`` throws.
    public func launchSession(configuration: RemoteDisplayConfiguration, through link: CastDeviceLink)
        async throws(CastRemoteDisplayError) -> RemoteDisplaySession
    {
        if configuration.offersVideo { try Self.requireScreen(on: link) }
        return try await self.launchSession(configuration: configuration, on: link.receiver)
    }

    /// Throws ``CastRemoteDisplayError/Code-swift.struct/noScreen`` when
    /// discovery says `link`'s device has no screen; a device known only by
    /// its address passes. For an app that must know before it opens its
    /// capture (a portal's dialog would ask the user first).
    public static func requireScreen(on link: CastDeviceLink) throws(CastRemoteDisplayError) {
        try Self.require(link.device.capabilities.contains(.videoOut), on: link, or: .noScreen, "has no screen")
    }

    /// Throws `code` when discovery says `link`'s device lacks a capability
    /// (`has` is whether it has it); a device known only by its address
    /// passes (its capabilities are unknown until asked: the launch decides there).
    static func require(
        _ has: Bool, on link: CastDeviceLink, or code: CastRemoteDisplayError.Code, _ lacking: String
    ) throws(CastRemoteDisplayError) {
        let device = link.device
        guard device.source != .knownHost, !has else { return }
        throw CastRemoteDisplayError(code, "\(device.friendlyName) \(lacking) (capabilities: \(device.capabilities))")
    }
}
