import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// sway's IPC (i3's protocol, sway-ipc(7)): each message is the magic
/// `i3-ipc`, the payload's length and the message type (32-bit, this
/// machine's byte order), then the payload; the reply has the same header
/// and JSON as its payload. What ``SwayVirtualOutput`` needs of it: run a
/// command, list the outputs.
package enum SwayIPC {
    /// The message types used (sway-ipc(7), "MESSAGES AND REPLIES").
    package enum MessageType: UInt32, Sendable {
        case runCommand = 0
        case getOutputs = 3
    }

    /// One output of `GET_OUTPUTS`, as much as is read of it.
    package struct Output: Decodable, Sendable, Equatable {
        /// Its name (`HEADLESS-1`, `eDP-1`…).
        package var name: String
        /// Whether it is enabled.
        package var active: Bool
        package init(name: String, active: Bool) {
            self.name = name
            self.active = active
        }
    }

    /// One command's result in a `RUN_COMMAND` reply.
    package struct CommandResult: Decodable, Sendable, Equatable {
        package var success: Bool
        /// Why it failed, when it did.
        package var error: String?
    }

    private static let magic = Array("i3-ipc".utf8)
    /// The header's size: the magic, the length, the type.
    package static let headerSize = 14
    /// The largest reply read: sway's outputs of a very large desk are a few
    /// tens of kilobytes; anything past this is not sway.
    package static let maximumPayload = 1 << 20

    /// A message of `type` carrying `payload`.
    package static func message(_ type: MessageType, payload: String) -> [UInt8] {
        let body = Array(payload.utf8)
        var bytes = Self.magic
        withUnsafeBytes(of: UInt32(body.count)) { bytes += $0 }
        withUnsafeBytes(of: type.rawValue) { bytes += $0 }
        return bytes + body
    }

    /// The payload length a reply's header announces, once it is checked to
    /// be sway's answer to `type`.
    package static func payloadLength(ofHeader header: [UInt8], answering type: MessageType) throws(SwayIPCError)
        -> Int
    {
        guard header.count == Self.headerSize, Array(header.prefix(6)) == Self.magic else {
            throw SwayIPCError("the reply does not start with i3-ipc")
        }
        let length = header[6..<10].withUnsafeBytes { Int($0.loadUnaligned(as: UInt32.self)) }
        let replyType = header[10..<14].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        guard replyType == type.rawValue else {
            throw SwayIPCError("the reply is of type \(replyType), not \(type.rawValue)")
        }
        guard length <= Self.maximumPayload else { throw SwayIPCError("the reply of \(length) bytes is too long") }
        return length
    }

    /// `GET_OUTPUTS`' reply.
    package static func outputs(inReply payload: [UInt8]) throws(SwayIPCError) -> [Output] {
        try Self.decode([Output].self, payload)
    }

    /// `RUN_COMMAND`'s reply: one result per command.
    package static func commandResults(inReply payload: [UInt8]) throws(SwayIPCError) -> [CommandResult] {
        try Self.decode([CommandResult].self, payload)
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ payload: [UInt8]) throws(SwayIPCError) -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(payload))
        } catch {
            throw SwayIPCError("the reply is not the JSON expected: \(error)")
        }
    }
}

/// sway's IPC answered with something that is not its protocol.
package struct SwayIPCError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}

/// A connection to sway's IPC socket (`SWAYSOCK`): one request at a time,
/// each answered within 5 seconds.
//
// @unchecked Sendable, and why it is safe: its one stored property is a `let`
// descriptor, but a request is a write then reads on that socket, which two
// threads must not interleave. Its only owner is one `SwayVirtualOutput`,
// which uses it while the capture is set up and then in `close()` — one
// thread at a time, ordered as that type's comment proves.
final class SwayConnection: @unchecked Sendable {
    private let descriptor: Int32

    /// Connects to the socket at `path`.
    init(path: String) throws(CaptureError) {
        switch UnixSocket.connect(to: path) {
        case .success(let descriptor): self.descriptor = descriptor
        case .failure(let failure):
            throw CaptureError(.portalUnavailable, "cannot reach sway at \(path): \(failure)")
        }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        for option in [SO_RCVTIMEO, SO_SNDTIMEO] {
            setsockopt(self.descriptor, SOL_SOCKET, option, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
    }

    deinit {
        close(self.descriptor)
    }

    /// Runs `command` (sway's command language); the first failure's reason is thrown.
    func run(_ command: String) throws(CaptureError) {
        let results = try self.parse(self.request(.runCommand, command), SwayIPC.commandResults(inReply:))
        if let failed = results.first(where: { !$0.success }) {
            throw CaptureError(.captureFailed, "sway refused “\(command)”: \(failed.error ?? "no reason given")")
        }
    }

    /// The outputs sway has, enabled or not.
    func outputs() throws(CaptureError) -> [SwayIPC.Output] {
        try self.parse(self.request(.getOutputs, ""), SwayIPC.outputs(inReply:))
    }

    private func parse<T>(_ payload: [UInt8], _ reader: ([UInt8]) throws(SwayIPCError) -> T) throws(CaptureError) -> T {
        do {
            return try reader(payload)
        } catch {
            throw CaptureError(.captureFailed, "sway's IPC answered something else", cause: error)
        }
    }

    private func request(_ type: SwayIPC.MessageType, _ payload: String) throws(CaptureError) -> [UInt8] {
        let message = SwayIPC.message(type, payload: payload)
        let written = message.withUnsafeBytes { send(self.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard written == message.count else { throw self.broken("cannot write to sway's IPC socket") }
        let header = try self.read(count: SwayIPC.headerSize)
        let length: Int
        do {
            length = try SwayIPC.payloadLength(ofHeader: header, answering: type)
        } catch {
            throw CaptureError(.captureFailed, "sway's IPC answered something else", cause: error)
        }
        return try self.read(count: length)
    }

    private func read(count: Int) throws(CaptureError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes {
                recv(self.descriptor, $0.baseAddress! + filled, count - filled, 0)
            }
            guard got > 0 else { throw self.broken("sway's IPC socket closed or did not answer in 5 s") }
            filled += got
        }
        return bytes
    }

    private func broken(_ message: String) -> CaptureError {
        CaptureError(.sourceVanished, message + " (\(String(cString: strerror(errno))))")
    }
}
