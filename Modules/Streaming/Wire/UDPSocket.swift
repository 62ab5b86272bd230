#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A connected, non-blocking UDP socket: the media path's one 5-tuple for
/// RTP out and RTCP in (Docs/spec/cast-streaming.md §2). Plain POSIX, so
/// sending a packet is one system call and allocates nothing.
///
/// Sends and receives may run on different threads (the kernel serializes
/// them); ``close()`` only once neither runs any more.
package final class UDPSocket: Sendable {
    private let descriptor: Int32
    /// Whether the socket speaks IPv6 (its packets must be smaller: 40-byte IP header).
    package let isIPv6: Bool

    /// Opens a socket connected to `host` (a numeric IPv4 or IPv6 address, or a name) and `port`.
    ///
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/networkFailure`` when
    ///   the address does not resolve or the socket cannot be made.
    package init(host: String, port: Int) throws(CastRemoteDisplayError) {
        let address = try Self.resolve(host: host, port: port)
        let descriptor = socket(
            Int32(address.family),
            Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            throw CastRemoteDisplayError(.networkFailure, "cannot open a UDP socket (errno \(errno))")
        }
        self.descriptor = descriptor
        self.isIPv6 = address.family == AF_INET6
        try self.aim(at: address)
    }

    /// Points the socket at another receiver address (after a reconnection).
    package func redirect(host: String, port: Int) throws(CastRemoteDisplayError) {
        try self.aim(at: try Self.resolve(host: host, port: port))
    }

    /// The local port.
    package var localPort: Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(self.descriptor, $0, &length) }
        }
        guard status == 0 else { return 0 }
        return withUnsafeBytes(of: &storage) { bytes in Int(bytes[2]) << 8 | Int(bytes[3]) }
    }

    /// Sends one datagram; a full socket buffer or an unreachable port drops
    /// it, as the network would (Cast Streaming recovers with NACKs).
    package func write(_ bytes: UnsafeRawBufferPointer) {
        _ = send(self.descriptor, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT))
    }

    /// Reads one waiting datagram into `buffer`; `nil` when none waits.
    package func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        let count = recv(self.descriptor, buffer.baseAddress, buffer.count, Int32(MSG_DONTWAIT))
        return count >= 0 ? count : nil
    }

    /// Waits until a datagram can be read or `timeout` passes; returns whether one can.
    package func waitForInput(timeout: Duration) -> Bool {
        var request = pollfd(fd: self.descriptor, events: Int16(POLLIN), revents: 0)
        // Rounded up: a remainder under 1 ms rounded down to poll(0) had the
        // network thread spin through the end of every 10 ms burst — system CPU
        // for nothing (issue: 1.3–1.5 s of it per 10 s of 720p30).
        let milliseconds = Int32(clamping: (max(timeout.inNanoseconds, 0) + 999_999) / 1_000_000)
        return poll(&request, 1, milliseconds) > 0 && request.revents & Int16(POLLIN) != 0
    }

    package func close() {
        _ = closeDescriptor(self.descriptor)
    }

    private struct Address {
        var family: Int32
        var storage: sockaddr_storage
        var length: socklen_t
    }

    private func aim(at address: Address) throws(CastRemoteDisplayError) {
        var storage = address.storage
        let status = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(self.descriptor, $0, address.length) }
        }
        guard status == 0 else {
            throw CastRemoteDisplayError(.networkFailure, "cannot address the receiver's UDP port (errno \(errno))")
        }
    }

    private static func resolve(host: String, port: Int) throws(CastRemoteDisplayError) -> Address {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard (1...65_535).contains(port), getaddrinfo(host, String(port), &hints, &result) == 0,
            let info = result, let address = info.pointee.ai_addr
        else {
            throw CastRemoteDisplayError(.networkFailure, "cannot resolve \(host) port \(port)")
        }
        defer { freeaddrinfo(result) }
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(info.pointee.ai_addrlen)))
        }
        return Address(family: info.pointee.ai_family, storage: storage, length: info.pointee.ai_addrlen)
    }
}

/// `close(2)`, under a name the socket's own `close()` does not shadow.
private func closeDescriptor(_ descriptor: Int32) -> Int32 {
    close(descriptor)
}
