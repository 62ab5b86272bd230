public import Foundation

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
        /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/invalidFile`` for anything but a
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
    private let handle: FileHandle

    /// Opens `path` and reads its header.
    ///
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/invalidFile``.
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
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/invalidFile``.
    public init(handle: FileHandle) throws(CastRemoteDisplayError) {
        self.handle = handle
        guard let line = try Self.readLine(handle) else {
            throw CastRemoteDisplayError(.invalidFile, "the stream is empty")
        }
        self.header = try Header(line: line)
    }

    /// Reads the next frame into `buffer` (I420 at the file's size); `false` at the end of the file.
    ///
    /// - Throws: ``CastRemoteDisplayError/Code-swift.struct/invalidFile`` for a frame without
    ///   its `FRAME` line; ``CastRemoteDisplayError/Code-swift.struct/frameFormatMismatch``
    ///   for a buffer of another size.
    public func readFrame(into buffer: inout PixelBuffer) throws(CastRemoteDisplayError) -> Bool {
        guard let marker = try Self.readLine(self.handle) else { return false }
        guard marker.hasPrefix("FRAME") else {
            throw CastRemoteDisplayError(.invalidFile, "a Y4M frame lacks its FRAME line")
        }
        let count = self.header.frameByteCount
        let data: Data?
        do {
            data = try self.handle.read(upToCount: count)
        } catch {
            throw CastRemoteDisplayError(.invalidFile, "the video cannot be read", cause: error)
        }
        guard let data, data.count == count else { return false }
        let bytes = [UInt8](data)
        let luma = self.width * self.height
        let chroma = luma / 4
        try buffer.copyPlane(0, from: Array(bytes[0..<luma]), bytesPerRow: self.width)
        try buffer.copyPlane(1, from: Array(bytes[luma..<(luma + chroma)]), bytesPerRow: self.width / 2)
        try buffer.copyPlane(2, from: Array(bytes[(luma + chroma)...]), bytesPerRow: self.width / 2)
        return true
    }

    /// One header or frame line (at most 1 KiB, without its newline); `nil` at the end.
    private static func readLine(_ handle: FileHandle) throws(CastRemoteDisplayError) -> String? {
        var line = Data()
        while line.count < 1_024 {
            let byte: Data?
            do {
                byte = try handle.read(upToCount: 1)
            } catch {
                throw CastRemoteDisplayError(.invalidFile, "the video cannot be read", cause: error)
            }
            guard let byte, let value = byte.first else {
                return line.isEmpty ? nil : String(decoding: line, as: UTF8.self)
            }
            if value == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(value)
        }
        throw CastRemoteDisplayError(.invalidFile, "a Y4M header line is longer than 1 KiB")
    }
}
