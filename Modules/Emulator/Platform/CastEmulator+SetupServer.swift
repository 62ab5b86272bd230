@_spi(Receiver) import CastDiscovery
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

extension CastEmulator {
    /// The firmware the emulator reports (`cast_build_revision`), in the form
    /// of conformance 076/078 (`1.56.275994`).
    public static let firmwareVersion = "1.56.500000"

    /// Starts the device's local setup server, as real devices run it:
    /// `GET /setup/eureka_info` over HTTPS (the Cast port's self-signed
    /// certificate) and plain HTTP, and the advertised icon (`ic`,
    /// `/setup/icon.png`) over HTTP. Real devices listen on 8443 and 8008
    /// (`CastDevice.setupSecurePort`); the default 0 picks
    /// free ports, read back from ``setupPorts``. ``stop()`` stops it.
    ///
    /// The answer follows what real devices send: over HTTPS, the top-level
    /// fields of conformance 078 and, when `params` names `device_info`, a
    /// `device_info` object with `name`, `manufacturer`, `model_name`,
    /// `ssdp_udn` and `capabilities` (the fields pychromecast's
    /// `get_device_info` reads); over plain HTTP `params` is ignored and
    /// `device_info` left out, as conformance 078 records of a device's
    /// port 8008. `ssdp_udn` is the advertised `id` with dashes (8-4-4-4-12).
    ///
    /// - Throws: ``CastEmulatorError/Code/bindFailed`` if a port cannot be
    ///   bound; ``CastEmulatorError/Code/invalidState`` if it runs already.
    public func startSetupServer(securePort: Int = 0, port: Int = 0) async throws(CastEmulatorError) {
        guard self.setupListeners.withLockedValue({ $0.isEmpty }) else {
            throw CastEmulatorError(.invalidState, "the setup server is already running")
        }
        let answers = SetupAnswers(
            name: self.configuration.name, advertisement: self.advertisement,
            manufacturer: self.configuration.profile.manufacturer)
        let loop = self.eventLoopGroup.next()
        let host = self.configuration.host
        let tls = self.tlsContext
        var listeners: [any Channel] = []
        for (secure, port) in [(true, securePort), (false, port)] {
            let makeBootstrap: @Sendable () -> ServerBootstrap = {
                ServerBootstrap(group: loop)
                    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                    .childChannelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            let sync = channel.pipeline.syncOperations
                            if secure { try sync.addHandler(NIOSSLServerHandler(context: tls)) }
                            try sync.configureHTTPServerPipeline()
                            try sync.addHandler(SetupRequestHandler(answers: answers, secure: secure))
                        }
                    }
            }
            do {
                // Bound from the loop's thread, as the Cast port is: the loop may have joined a namespace.
                listeners.append(try await loop.flatSubmit { makeBootstrap().bind(host: host, port: port) }.get())
            } catch {
                for listener in listeners { try? await listener.close() }
                throw CastEmulatorError(
                    .bindFailed, "cannot listen for the setup server on \(host):\(port)", cause: error)
            }
        }
        self.setupListeners.withLockedValue { $0 = listeners }
    }

    /// The setup server's HTTPS and HTTP ports while it runs (``startSetupServer(securePort:port:)``).
    public var setupPorts: (secure: Int, plain: Int)? {
        let ports = self.setupListeners.withLockedValue { $0.compactMap(\.localAddress?.port) }
        guard ports.count == 2 else { return nil }
        return (ports[0], ports[1])
    }

    /// Stops the setup server, if it runs.
    func stopSetupServer() async {
        let listeners = self.setupListeners.withLockedValue { listeners in
            defer { listeners = [] }
            return listeners
        }
        for listener in listeners { try? await listener.close() }
    }
}

/// What the setup server answers, made once at its start.
private struct SetupAnswers: Sendable {
    let withDeviceInfo: Data
    let withoutDeviceInfo: Data
    let iconPath: String

    /// A 1×1 PNG, the icon served at the advertised `ic` path.
    static let icon: [UInt8] = Array(
        Data(
            base64Encoded:
                "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")
            ?? Data())

    init(name: String, advertisement: CastAdvertisement, manufacturer: String) {
        let id = Array(advertisement.id)
        let udn =
            id.count == 32
            ? [id[0..<8], id[8..<12], id[12..<16], id[16..<20], id[20..<32]].map { String($0) }.joined(separator: "-")
            : advertisement.id
        let top: [String: Any] = [
            "name": name, "ssdp_udn": udn, "cast_build_revision": CastEmulator.firmwareVersion,
            "build_version": String(CastEmulator.firmwareVersion.split(separator: ".").last ?? ""),
            "version": 12, "connected": true, "locale": "en-US", "setup_state": 60,
        ]
        var full = top
        full["device_info"] = [
            "name": name, "manufacturer": manufacturer, "model_name": advertisement.modelName, "ssdp_udn": udn,
            "capabilities": [
                "display_supported": advertisement.capabilities.contains(.videoOut),
                "multizone_supported": true,
            ],
        ]
        self.withDeviceInfo = (try? JSONSerialization.data(withJSONObject: full, options: [.sortedKeys])) ?? Data()
        self.withoutDeviceInfo = (try? JSONSerialization.data(withJSONObject: top, options: [.sortedKeys])) ?? Data()
        self.iconPath = advertisement.iconPath
    }
}

/// Answers one connection's requests to the setup server.
private final class SetupRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let answers: SetupAnswers
    private let secure: Bool
    private var head: HTTPRequestHead?

    init(answers: SetupAnswers, secure: Bool) {
        self.answers = answers
        self.secure = secure
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch Self.unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head = self.head else { return }
            self.head = nil
            self.respond(to: head, context: context)
        }
    }

    private func respond(to head: HTTPRequestHead, context: ChannelHandlerContext) {
        let components = URLComponents(string: head.uri)
        let path = components?.path ?? head.uri
        let status: HTTPResponseStatus
        let type: String
        let body: [UInt8]
        if head.method == .GET, path == "/setup/eureka_info" {
            let params = components?.queryItems?.first { $0.name == "params" }?.value ?? ""
            let asksDeviceInfo = params.split(separator: ",").contains("device_info")
            (status, type) = (.ok, "application/json")
            body = Array(self.secure && asksDeviceInfo ? self.answers.withDeviceInfo : self.answers.withoutDeviceInfo)
        } else if head.method == .GET, !self.secure, path == self.answers.iconPath {
            (status, type, body) = (.ok, "image/png", SetupAnswers.icon)
        } else {
            (status, type, body) = (.notFound, "text/plain", Array("not found".utf8))
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: "\(body.count)")
        headers.add(name: "Connection", value: "close")
        context.write(
            Self.wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))),
            promise: nil)
        context.write(Self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(Self.wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
