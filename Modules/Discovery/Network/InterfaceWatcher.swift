import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#endif

/// Tells discovery at once when an interface or an address comes or goes:
/// an rtnetlink socket subscribed to link and IPv4/IPv6 address events
/// (`RTMGRP_LINK`, `RTMGRP_IPV4_IFADDR`, `RTMGRP_IPV6_IFADDR`; rtnetlink(7)).
///
/// The messages are not parsed: any of them means "look at the interfaces
/// again", which ``DiscoveryRuntime/pollInterfaces()`` does from
/// `getifaddrs`, so a burst of messages for one change (a link, then each of
/// its addresses) becomes one look, `settle` after the first. The socket is
/// read by a NIO pipe channel on the discovery event loop (created on its
/// thread, so it watches that thread's network namespace).
final class InterfaceWatcher: Sendable {
    private let channel: any Channel

    private init(channel: any Channel) {
        self.channel = channel
    }

    /// Opens the socket on `eventLoop` and calls `changed` (on the loop) after each burst of events.
    static func open(
        on eventLoop: any EventLoop, settle: TimeAmount = .milliseconds(20), changed: @escaping @Sendable () -> Void
    ) -> EventLoopFuture<InterfaceWatcher> {
        eventLoop.flatSubmit {
            // Protocol 0: NETLINK_ROUTE.
            let descriptor = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else {
                return eventLoop.makeFailedFuture(IOError(errnoCode: errno, reason: "socket(AF_NETLINK)"))
            }
            // struct sockaddr_nl (linux/netlink.h, which Glibc's module leaves out): the family
            // (16 bits), padding (16), the port id (32, 0: the kernel picks), the groups (32):
            // RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR.
            let groups: UInt32 = 0x1 | 0x10 | 0x100
            var address = [UInt8](repeating: 0, count: 12)
            withUnsafeBytes(of: UInt16(AF_NETLINK)) { address.replaceSubrange(0..<2, with: $0) }
            withUnsafeBytes(of: groups) { address.replaceSubrange(8..<12, with: $0) }
            let bound = address.withUnsafeBytes {
                bind(descriptor, $0.baseAddress?.assumingMemoryBound(to: sockaddr.self), socklen_t($0.count))
            }
            guard bound == 0 else {
                let code = errno
                Glibc.close(descriptor)
                return eventLoop.makeFailedFuture(IOError(errnoCode: code, reason: "bind(AF_NETLINK)"))
            }
            return NIOPipeBootstrap(group: eventLoop)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(
                            Handler(settle: settle, changed: changed))
                    }
                }
                .takingOwnershipOfDescriptor(input: descriptor)
                .map { InterfaceWatcher(channel: $0) }
                .flatMapErrorThrowing { error in
                    Glibc.close(descriptor)
                    throw error
                }
        }
    }

    /// Closes the socket.
    func close() -> EventLoopFuture<Void> {
        self.channel.close()
    }

    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer

        private let settle: TimeAmount
        private let changed: @Sendable () -> Void
        private var pending: Scheduled<Void>?

        init(settle: TimeAmount, changed: @escaping @Sendable () -> Void) {
            self.settle = settle
            self.changed = changed
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard self.pending == nil else { return }
            let changed = self.changed
            self.pending = context.eventLoop.assumeIsolated().scheduleTask(in: self.settle) {
                self.pending = nil
                changed()
            }
        }

        func handlerRemoved(context: ChannelHandlerContext) {
            self.pending?.cancel()
            self.pending = nil
        }
    }
}
