public import CastChannels

extension CastDeviceLink {
    /// A media client on the app that plays media on the device: the one
    /// running with the media namespace, else the Default Media Receiver,
    /// launched. The client asks for the media status as it attaches.
    ///
    /// - Throws: what ``CastDeviceLink/application(_:options:attaching:knownStatus:)``
    ///   and ``ReceiverChannel/requestStatus()`` throw.
    public func mediaClient(requestTimeout: Duration = .seconds(10)) async throws(CastChannelError)
        -> RemoteMediaClient
    {
        let media = RemoteMediaClient(requestTimeout: requestTimeout)
        let status = try await self.receiver.requestStatus()
        if let playing = status.applications.first(where: { $0.namespaces.contains(CastNamespace.media) }) {
            try await self.join(playing, attaching: [media])
        } else {
            _ = try await self.application(
                CastApplicationID.defaultMediaReceiver, attaching: [media], knownStatus: status)
        }
        return media
    }
}
