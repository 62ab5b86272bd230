import CastCommon

/// Virtual connections (Docs/spec/castv2-control.md §3): the receiver drops
/// every non-platform message from a (source, destination) pair that has not
/// sent CONNECT. This connection keeps one per destination, from ``CastConnection/senderID``.
extension CastConnection {
    /// Opens a virtual connection to `destinationID` (`receiver-0`, or an
    /// app's `transportId`) by sending CONNECT with this sender's
    /// ``SenderInfo``. Opening one that is already open does nothing.
    ///
    /// - Parameters:
    ///   - destinationID: `receiver-0` or an app's transport id.
    ///   - type: the connection type; `nil` (the default) chooses as Chrome
    ///     does (cast_message_util.cc `GetConnectionType`): strong to
    ///     `receiver-0`, invisible to an app, so the app does not count this
    ///     sender among the senders it must stay up for.
    /// - Throws: ``CastTransportError/Code/notConnected`` or a send error.
    public func openVirtualConnection(
        to destinationID: String,
        type: VirtualConnectionType? = nil
    ) throws(CastTransportError) {
        guard self.openVirtualConnections[destinationID] == nil else { return }
        let type = type ?? (destinationID == CastEndpointID.receiverPlatform ? .strong : .invisible)
        let text = try ConnectionMessage.connect(type: type, sender: self.configuration.sender).text()
        try self.send(namespace: TransportNamespace.connection, to: destinationID, text: text)
        self.openVirtualConnections[destinationID] = type
        self.virtualConnectionBroadcaster.yield(.opened(destinationID: destinationID))
    }

    /// Closes the virtual connection to `destinationID` by sending CLOSE
    /// (reason: closed by self). Closing one that is not open does nothing.
    ///
    /// - Throws: ``CastTransportError/Code/notConnected`` or a send error.
    public func closeVirtualConnection(to destinationID: String) throws(CastTransportError) {
        guard self.openVirtualConnections[destinationID] != nil else { return }
        let text = try ConnectionMessage.close(reason: .closedBySelf).text()
        try self.send(namespace: TransportNamespace.connection, to: destinationID, text: text)
        self.openVirtualConnections[destinationID] = nil
        self.virtualConnectionBroadcaster.yield(.closed(destinationID: destinationID))
    }

    /// Whether a virtual connection to `destinationID` is open.
    public func isVirtualConnectionOpen(to destinationID: String) -> Bool {
        self.openVirtualConnections[destinationID] != nil
    }

    /// Every later virtual-connection change, until the connection ends.
    /// Each call gives a new, independent stream.
    public nonisolated func virtualConnectionEvents() -> AsyncStream<VirtualConnectionEvent> {
        self.virtualConnectionBroadcaster.subscribe()
    }

    /// Handles a connection-namespace message addressed to this sender.
    func handleConnectionMessage(_ message: CastMessage) {
        guard let text = message.text, case .close(let reason)? = ConnectionMessage(text: text) else {
            return
        }
        guard self.openVirtualConnections.removeValue(forKey: message.sourceID) != nil else { return }
        self.virtualConnectionBroadcaster.yield(
            .closedByPeer(destinationID: message.sourceID, reason: reason ?? .unknown)
        )
    }

    /// Best effort on the way out: CLOSE every open virtual connection.
    func sendCloseToOpenVirtualConnections() {
        for destinationID in self.openVirtualConnections.keys.sorted() {
            try? self.closeVirtualConnection(to: destinationID)
        }
    }
}
