import NIOConcurrencyHelpers

/// What a ``GenericChannel`` tells its delegate: the SDK's `GCKGenericChannelDelegate`.
/// Only the text message is required; the rest do nothing by default.
public protocol GenericChannelDelegate: AnyObject, Sendable {
    /// A text message arrived.
    func channel(_ channel: GenericChannel, didReceiveTextMessage message: String)
    /// A binary message arrived.
    func channel(_ channel: GenericChannel, didReceiveBinaryMessage message: [UInt8])
    /// The channel connected.
    func channelDidConnect(_ channel: GenericChannel)
    /// The channel disconnected.
    func channelDidDisconnect(_ channel: GenericChannel)
}

extension GenericChannelDelegate {
    /// Does nothing.
    public func channel(_ channel: GenericChannel, didReceiveBinaryMessage message: [UInt8]) {}
    /// Does nothing.
    public func channelDidConnect(_ channel: GenericChannel) {}
    /// Does nothing.
    public func channelDidDisconnect(_ channel: GenericChannel) {}
}

/// A channel that hands what it receives to a delegate instead of being
/// subclassed: the SDK's `GCKGenericChannel`. The delegate is held weakly.
public final class GenericChannel: CastChannel, @unchecked Sendable {
    // @unchecked Sendable: restated from CastChannel, as Swift requires. Its one
    // stored property, `delegateBox`, is a `let` NIOLockedValueBox: the weak
    // delegate (itself Sendable) is read and replaced only under that lock.

    private struct WeakDelegate {
        weak var value: (any GenericChannelDelegate)?
    }

    private let delegateBox = NIOLockedValueBox(WeakDelegate())

    /// Creates a channel for `namespace`.
    ///
    /// - Throws: ``CastChannelError/Code/invalidNamespace`` unless it starts with `urn:x-cast:`.
    override public init(namespace: String) throws(CastChannelError) {
        try super.init(namespace: namespace)
    }

    /// Who is told about messages and connectivity; held weakly.
    public var delegate: (any GenericChannelDelegate)? {
        get { self.delegateBox.withLockedValue { $0.value } }
        set { self.delegateBox.withLockedValue { $0.value = newValue } }
    }

    /// Passes the message to the delegate.
    override public func didReceiveTextMessage(_ message: String) {
        self.delegate?.channel(self, didReceiveTextMessage: message)
    }

    /// Passes the message to the delegate.
    override public func didReceiveBinaryMessage(_ message: [UInt8]) {
        self.delegate?.channel(self, didReceiveBinaryMessage: message)
    }

    /// Tells the delegate.
    override public func didConnect() {
        self.delegate?.channelDidConnect(self)
    }

    /// Tells the delegate.
    override public func didDisconnect() {
        self.delegate?.channelDidDisconnect(self)
    }
}
