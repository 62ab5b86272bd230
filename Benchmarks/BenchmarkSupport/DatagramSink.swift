import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A process that receives UDP datagrams on 127.0.0.1 and drops them, or
/// answers each with a datagram as a receiver answers a frame with feedback:
/// the far end of a baseline that sends what a sender sends, so the baseline
/// pays what sending costs the sender (the system call, the loopback
/// delivery, waking a receiver in another process) and nothing else.
public final class DatagramSink: Sendable {
    private let server: SupervisedServer
    private let log: String

    /// The connected socket, for a baseline in C that sends and receives itself.
    public let socketDescriptor: Int32

    /// Starts the sink (python3) and connects a socket to it; with
    /// `replyBytes` above zero, the sink answers each datagram with that many zero bytes.
    public init(replyBytes: Int = 0) throws {
        let log = NSTemporaryDirectory() + "cast-sink-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log"
        let script =
            "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(('127.0.0.1', 0)); "
            + "print(s.getsockname()[1], flush=True)\nreply = bytes(\(replyBytes))\nwhile True:\n"
            + "    data, sender = s.recvfrom(65536)\n    if reply: s.sendto(reply, sender)"
        self.server = try SupervisedServer("exec python3 -u -c \"\(script)\"", output: log)
        self.log = log
        let port = SupervisedServer.first(in: log, within: 10) { $0.split(separator: "\n").first.flatMap { Int($0) } }
        guard let port else {
            self.server.stop()
            throw BenchmarkSupportError(description: "the datagram sink did not start (see \(log))")
        }
        let descriptor = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard descriptor >= 0, connected == 0 else {
            self.server.stop()
            throw BenchmarkSupportError(description: "cannot address the datagram sink (errno \(errno))")
        }
        self.socketDescriptor = descriptor
    }

    deinit {
        close(self.socketDescriptor)
        self.server.stop()
        unlink(self.log)
    }
}
