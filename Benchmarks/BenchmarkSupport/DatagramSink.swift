import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A process that receives UDP datagrams on 127.0.0.1 and drops them: the
/// far end of a baseline that sends what a sender sends, so the baseline
/// pays what sending costs the sender (the system call, the loopback
/// delivery, waking a receiver in another process) and nothing else.
public final class DatagramSink: Sendable {
    private let server: SupervisedServer
    private let log: String
    private let descriptor: Int32

    /// Starts the sink (python3) and connects a socket to it.
    public init() throws {
        let log = NSTemporaryDirectory() + "cast-sink-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log"
        let script =
            "import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(('127.0.0.1', 0)); "
            + "print(s.getsockname()[1], flush=True)\nwhile True: s.recv(65536)"
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
        self.descriptor = descriptor
    }

    deinit {
        close(self.descriptor)
        self.server.stop()
        unlink(self.log)
    }

    /// Sends `count` bytes of `bytes` as one datagram.
    public func send(_ bytes: UnsafeRawBufferPointer, count: Int) {
        _ = Glibc.send(self.descriptor, bytes.baseAddress, min(count, bytes.count), Int32(MSG_DONTWAIT))
    }
}
