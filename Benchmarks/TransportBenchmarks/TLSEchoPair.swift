import Crypto
import Foundation
import NIOConcurrencyHelpers
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
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: serverContext))
                    try channel.pipeline.syncOperations.addHandler(EchoHandler())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let reader = ReplyReader()
        let client = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
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
        self.reader.expect(bytes.count, promise: promise)
        try await self.client.writeAndFlush(self.client.allocator.buffer(bytes: bytes))
        try await promise.futureResult.get()
    }

    func stop() async throws {
        try await self.client.close()
        try await self.server.close()
    }
}

/// Counts reply bytes and completes a promise once the expected count has arrived.
final class ReplyReader: Sendable {
    private struct State {
        var remaining = 0
        var promise: EventLoopPromise<Void>?
    }

    private let state = NIOLockedValueBox(State())

    func expect(_ count: Int, promise: EventLoopPromise<Void>) {
        self.state.withLockedValue { state in
            state.remaining += count
            state.promise = promise
        }
    }

    func received(_ count: Int) {
        let done: EventLoopPromise<Void>? = self.state.withLockedValue { state in
            state.remaining -= count
            guard state.remaining <= 0 else { return nil }
            defer { state.promise = nil }
            return state.promise
        }
        done?.succeed()
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
