public import CastStreaming
public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A YUV4MPEG2 (`.y4m`) video read frame by frame: 8-bit 4:2:0 only, the
/// format `ffmpeg -pix_fmt yuv420p out.y4m` writes. Frames go straight into
/// a session's pixel buffers.
///
/// ```swift
/// let video = try Y4MFile(path: "clip.y4m")
/// while var frame = session.createPixelBuffer(), try video.readFrame(into: &frame) {
///     _ = try session.enqueueVideoFrame(frame, pts: .now)
/// }
/// ```
public final class Y4MFile {
    /// The picture's header fields.
    public struct Header: Sendable, Hashable {
        /// Pixels per row; even.
        public var width: Int
        /// Rows; even.
        public var height: Int
        /// Frames per second (`F` numerator:denominator), 30 when the header has none.
        public var frameRate: Double

        /// Reads a stream header line (without its newline): `YUV4MPEG2 W… H… F…:… C420…`.
        ///
        /// - Throws: `CastRemoteDisplayError.Code.invalidFile` for anything but a
        ///   4:2:0 stream with an even size of at most 4096 per side.
        public init(line: String) throws(CastRemoteDisplayError) {
            guard line.hasPrefix("YUV4MPEG2 ") else {
                throw CastRemoteDisplayError(.invalidFile, "not a YUV4MPEG2 stream")
            }
            var width = 0
            var height = 0
            var rate = 30.0
            for field in line.split(separator: " ").dropFirst() {
                let value = field.dropFirst()
                switch field.first {
                case "W": width = Int(value) ?? 0
                case "H": height = Int(value) ?? 0
                case "F":
                    let parts = value.split(separator: ":").compactMap { Double($0) }
                    if parts.count == 2, parts[0] > 0, parts[1] > 0, (parts[0] / parts[1]).isFinite {
                        rate = parts[0] / parts[1]
                    }
                case "C":
                    guard value.hasPrefix("420") else {
                        throw CastRemoteDisplayError(.invalidFile, "C\(value): only 8-bit 4:2:0 (C420…) streams")
                    }
                default: break
                }
            }
            let sides = 2...RemoteDisplayLimits.maximumDimension
            guard sides.contains(width), sides.contains(height), width % 2 == 0, height % 2 == 0 else {
                throw CastRemoteDisplayError(
                    .invalidFile, "the header's size \(width)×\(height) is not even and within 2…4096 per side")
            }
            self.width = width
            self.height = height
            self.frameRate = rate
        }

        /// Bytes of one 4:2:0 frame.
        public var frameByteCount: Int { self.width * self.height * 3 / 2 }
    }

    /// What the header says.
    public let header: Header
    /// Pixels per row.
    public var width: Int { self.header.width }
    /// Rows.
    public var height: Int { self.header.height }
    /// Frames per second.
    public var frameRate: Double { self.header.frameRate }
    private let reader: Reader
    /// One frame's bytes, allocated once: a frame costs one `read` (or a
    /// few) and no allocation.
    private var frame: [UInt8]

    /// Opens `path` and reads its header.
    ///
    /// - Throws: `CastRemoteDisplayError.Code.invalidFile`.
    public convenience init(path: String) throws(CastRemoteDisplayError) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CastRemoteDisplayError(.invalidFile, "cannot open \(path)")
        }
        do {
            try self.init(handle: handle)
        } catch {
            throw CastRemoteDisplayError(.invalidFile, "\(path) is not a YUV4MPEG2 file this reads", cause: error)
        }
    }

    /// Reads the header from `handle`, which then yields the frames.
    ///
    /// - Throws: `CastRemoteDisplayError.Code.invalidFile`.
    public init(handle: FileHandle) throws(CastRemoteDisplayError) {
        let reader = Reader(handle: handle)
        guard let line = try reader.readLine() else {
            throw CastRemoteDisplayError(.invalidFile, "the stream is empty")
        }
        self.header = try Header(line: line)
        self.reader = reader
        self.frame = [UInt8](repeating: 0, count: self.header.frameByteCount)
    }

    /// Reads the next frame into `buffer` (I420 at the file's size); `false` at the end of the file.
    ///
    /// - Throws: `CastRemoteDisplayError.Code.invalidFile` for a frame without
    ///   its `FRAME` line; `CastRemoteDisplayError.Code.frameFormatMismatch`
    ///   for a buffer of another size.
    public func readFrame(into buffer: inout PixelBuffer) throws(CastRemoteDisplayError) -> Bool {
        guard let marker = try self.reader.readLine() else { return false }
        guard marker.hasPrefix("FRAME") else {
            throw CastRemoteDisplayError(.invalidFile, "a Y4M frame lacks its FRAME line")
        }
        let count = self.header.frameByteCount
        let whole = self.frame.withUnsafeMutableBytes { buffer in
            Result { () throws(CastRemoteDisplayError) in try self.reader.read(exactly: buffer) }
        }
        guard try whole.get() else { return false }
        let luma = self.width * self.height
        let chroma = luma / 4
        let width = self.width
        let planes: [(Int, Range<Int>, Int)] = [
            (0, 0..<luma, width), (1, luma..<(luma + chroma), width / 2), (2, (luma + chroma)..<count, width / 2),
        ]
        for (plane, range, stride) in planes {
            let failure = self.frame.withUnsafeBytes { bytes -> CastRemoteDisplayError? in
                do throws(CastRemoteDisplayError) {
                    try buffer.copyPlane(
                        plane, from: UnsafeRawBufferPointer(rebasing: bytes[range]), bytesPerRow: stride)
                    return nil
                } catch {
                    return error
                }
            }
            if let failure { throw failure }
        }
        return true
    }

    /// Reads lines and frames from a descriptor with a small read-ahead buffer:
    /// a line costs no `read` per byte, a frame goes straight into its buffer.
    private final class Reader {
        private let handle: FileHandle
        private var ahead = [UInt8](repeating: 0, count: 4_096)
        private var unread = 0..<0

        init(handle: FileHandle) {
            self.handle = handle
        }

        /// One header or frame line (at most 1 KiB, without its newline); `nil` at the end.
        func readLine() throws(CastRemoteDisplayError) -> String? {
            var line: [UInt8] = []
            while line.count < 1_024 {
                if self.unread.isEmpty {
                    let got = try self.ahead.withUnsafeMutableBytes { Self.read(self.handle, into: $0) }.get()
                    guard got > 0 else { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
                    self.unread = 0..<got
                }
                let value = self.ahead[self.unread.lowerBound]
                self.unread = self.unread.dropFirst()
                if value == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
                line.append(value)
            }
            throw CastRemoteDisplayError(.invalidFile, "a Y4M header line is longer than 1 KiB")
        }

        /// Fills `buffer`: what was read ahead, then from the file; `false` when it ends first.
        func read(exactly buffer: UnsafeMutableRawBufferPointer) throws(CastRemoteDisplayError) -> Bool {
            let first = min(self.unread.count, buffer.count)
            self.ahead.withUnsafeBytes { ahead in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: ahead[self.unread.prefix(first)]))
            }
            self.unread = self.unread.dropFirst(first)
            var filled = first
            while filled < buffer.count {
                let got = try Self.read(self.handle, into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
                    .get()
                guard got > 0 else { return false }
                filled += got
            }
            return true
        }

        /// One `read(2)`, again after a signal; 0 at the end.
        private static func read(
            _ handle: FileHandle, into buffer: UnsafeMutableRawBufferPointer
        ) -> Result<Int, CastRemoteDisplayError> {
            while true {
                let got = Glibc.read(handle.fileDescriptor, buffer.baseAddress, buffer.count)
                if got >= 0 { return .success(got) }
                guard errno == EINTR else {
                    return .failure(CastRemoteDisplayError(.invalidFile, "the video cannot be read (errno \(errno))"))
                }
            }
        }
    }
}
