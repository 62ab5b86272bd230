import Crypto
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import X509

/// The round-trip baseline: a TLS echo server and a client on loopback, with
/// nothing but NIO and NIOSSL between the bytes and the socket.
struct TLSEchoPair {
    let server: any Channel
    let client: any Channel
    let reader: ReplyReader

    static func start() async throws -> TLSEchoPair {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("bench") }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: Date().addingTimeInterval(-3_600),
            notValidAfter: Date().addingTimeInterval(86_400),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: Certificate.Extensions(),
            issuerPrivateKey: Certificate.PrivateKey(key)
        )
        let serverContext = try NIOSSLContext(
            configuration: .makeServerConfiguration(
                certificateChain: [
                    .certificate(
                        try NIOSSLCertificate(bytes: Array(certificate.serializeAsPEM().pemString.utf8), format: .pem))
                ],
                privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(key.pemRepresentation.utf8), format: .pem))
            )
        )
        var clientConfiguration = TLSConfiguration.makeClientConfiguration()
        clientConfiguration.certificateVerification = .none
        let clientContext = try NIOSSLContext(configuration: clientConfiguration)

        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: serverContext))
                    try channel.pipeline.syncOperations.addHandler(EchoHandler())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let reader = ReplyReader()
        let client = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        NIOSSLClientHandler(context: clientContext, serverHostname: nil)
                    )
                    try channel.pipeline.syncOperations.addHandler(ReplyHandler(reader: reader))
                }
            }
            .connect(host: "127.0.0.1", port: server.localAddress?.port ?? 0).get()
        return TLSEchoPair(server: server, client: client, reader: reader)
    }

    /// Writes `bytes` and waits until as many have come back.
    func roundTrip(_ bytes: [UInt8]) async throws {
        let promise = self.client.eventLoop.makePromise(of: Void.self)
        self.client.eventLoop.execute {
            self.reader.expect(bytes.count, promise: promise)
        }
        try await self.client.writeAndFlush(self.client.allocator.buffer(bytes: bytes))
        try await promise.futureResult.get()
    }

    func stop() async throws {
        try await self.client.close()
        try await self.server.close()
    }
}

/// Counts reply bytes on the client's event loop and completes a promise at the expected count.
final class ReplyReader: @unchecked Sendable {
    // Touched only on the client channel's event loop (execute and channelRead), so never concurrently.
    private var remaining = 0
    private var promise: EventLoopPromise<Void>?

    func expect(_ count: Int, promise: EventLoopPromise<Void>) {
        self.remaining += count
        self.promise = promise
    }

    func received(_ count: Int) {
        self.remaining -= count
        if self.remaining <= 0, let promise = self.promise {
            self.promise = nil
            promise.succeed()
        }
    }
}

final class ReplyHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    let reader: ReplyReader
    init(reader: ReplyReader) { self.reader = reader }
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        self.reader.received(Self.unwrapInboundIn(data).readableBytes)
    }
}

final class EchoHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.writeAndFlush(data, promise: nil)
    }
}
