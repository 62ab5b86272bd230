#if canImport(Glibc)
import Glibc
private let systemConnect = Glibc.connect
private let systemClose = Glibc.close
#elseif canImport(Musl)
import Musl
private let systemConnect = Musl.connect
private let systemClose = Musl.close
#endif

/// A connected UNIX stream socket: how this module reaches a PipeWire
/// daemon by its socket's path and a compositor's IPC socket.
package enum UnixSocket {
    /// Connects to the socket at `path`; the descriptor (close-on-exec) is the caller's to close.
    ///
    /// - Returns: the descriptor, or the failure's `errno` text.
    package static func connect(to path: String) -> Result<Int32, UnixSocketFailure> {
        var address = sockaddr_un()
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.utf8.count < capacity else { return .failure(UnixSocketFailure("the path is too long")) }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return .failure(UnixSocketFailure(String(cString: strerror(errno)))) }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            path.utf8CString.withUnsafeBytes { bytes.copyMemory(from: $0) }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                systemConnect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            _ = systemClose(descriptor)
            return .failure(UnixSocketFailure(reason))
        }
        return .success(descriptor)
    }

    /// Closes `descriptor` (for types whose own `close()` hides the system's).
    package static func close(_ descriptor: Int32) {
        _ = systemClose(descriptor)
    }
}

/// Why a UNIX socket could not be connected, as `strerror` says it.
package struct UnixSocketFailure: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
