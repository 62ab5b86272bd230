public import NIOCore

/// The sender's end of an in-memory connection, as the receiver hands it
/// over: the channel (the receiver has set up and activated the other end)
/// and the certificate the receiver presents, which a TLS handshake would
/// have shown and device authentication signs over.
@_spi(Receiver) public struct InMemoryLink: Sendable {
    /// The sender's end; not yet active.
    @_spi(Receiver) public let channel: InMemoryChannel
    /// The receiver's TLS certificate, DER.
    @_spi(Receiver) public let certificateDER: [UInt8]

    /// A link over `channel`, presenting `certificateDER`.
    @_spi(Receiver) public init(channel: InMemoryChannel, certificateDER: [UInt8]) {
        self.channel = channel
        self.certificateDER = certificateDER
    }
}

/// A receiver that accepts in-memory connections: given the event loop the
/// sender's end should run on, it makes a pair, installs its pipeline on
/// its own end and hands over the other.
@_spi(Receiver) public typealias InMemoryReceiver = @Sendable (_ senderLoop: any EventLoop) async throws -> InMemoryLink
