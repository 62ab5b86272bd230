/// Which inbound messages a subscriber wants: a namespace, and optionally
/// one source and one destination. Broadcasts (`*`) match any destination.
public struct MessageFilter: Sendable, Hashable {
    /// The namespace to receive.
    public var namespace: String
    /// Only messages from this endpoint, or from any when `nil`.
    public var sourceID: String?
    /// Only messages to this endpoint (or broadcasts), or to any when `nil`.
    public var destinationID: String?

    /// Creates a filter.
    public init(namespace: String, sourceID: String? = nil, destinationID: String? = nil) {
        self.namespace = namespace
        self.sourceID = sourceID
        self.destinationID = destinationID
    }

    /// Whether `message` passes the filter.
    public func matches(_ message: CastMessage) -> Bool {
        guard message.namespace == self.namespace else { return false }
        if let sourceID = self.sourceID, message.sourceID != sourceID { return false }
        if let destinationID = self.destinationID, !message.isBroadcast, message.destinationID != destinationID {
            return false
        }
        return true
    }
}
