/// Reads a fragmented MP4 as ffmpeg writes it (ISO/IEC 14496-12), a chunk
/// at a time: the header (`ftyp` and `moov`, an HLS stream's
/// initialization segment) and then each fragment (a `moof` and its
/// `mdat`) with when its video track's first sample is shown, so that the
/// fragments can be gathered into the HLS segments a layout cut.
///
/// Only top-level boxes are kept whole; within a `moof` only `traf`, `tfhd`,
/// `tfdt` and `trun` are read. A box larger than ``maximumBoxSize`` or
/// shorter than its header is an error: the file is not what ffmpeg writes.
package struct FragmentedMP4Reader {
    /// What the file brought.
    package enum Part: Equatable, Sendable {
        /// The `ftyp` and `moov` boxes, as written.
        case header([UInt8])
        /// A `moof` and the `mdat` after it, as written; the presentation
        /// time of the first sample of track ``videoTrack``, in its
        /// timescale's ticks, when that track is in it.
        case fragment([UInt8], videoTime: Int64?)
    }

    /// Why the file cannot be read.
    package enum ReadError: Error, Equatable {
        /// A box whose size is below its header's or above ``maximumBoxSize``.
        case badBox(String)
        /// An `mdat` without a `moof` before it, or a `moof` after the header was not complete.
        case unexpected(String)
    }

    /// The largest box read: 256 MiB (a 4K fragment of 2 s is about 25 MiB).
    package static let maximumBoxSize = 256 << 20
    /// The track whose times place fragments: the first stream mapped, the video.
    package let videoTrack: UInt32

    /// Ticks per second of track ``videoTrack`` (its `mdhd` timescale), once the header is read.
    package private(set) var timescale: Int64?

    private var buffer: [UInt8] = []
    private var header: [UInt8] = []
    private var headerDone = false
    private var pendingFragment: (bytes: [UInt8], videoTime: Int64?)?

    package init(videoTrack: UInt32 = 1) {
        self.videoTrack = videoTrack
    }

    /// Takes the next bytes of the file; the parts they completed.
    package mutating func feed(_ bytes: some Collection<UInt8>) throws(ReadError) -> [Part] {
        self.buffer.append(contentsOf: bytes)
        var parts: [Part] = []
        var offset = 0
        while let (type, size) = try Self.box(in: self.buffer, at: offset), offset + size <= self.buffer.count {
            let box = Array(self.buffer[offset..<(offset + size)])
            offset += size
            if let part = try self.take(type, box) { parts.append(part) }
        }
        self.buffer.removeFirst(offset)
        return parts
    }

    /// One whole top-level box.
    private mutating func take(_ type: String, _ box: [UInt8]) throws(ReadError) -> Part? {
        switch type {
        case "moof":
            guard self.headerDone, self.pendingFragment == nil else {
                throw .unexpected(self.headerDone ? "a moof without its mdat" : "a moof before the moov")
            }
            self.pendingFragment = (box, Self.firstSampleTime(ofTrack: self.videoTrack, inMoof: box))
            return nil
        case "mdat":
            guard let fragment = self.pendingFragment else { throw .unexpected("an mdat without a moof") }
            self.pendingFragment = nil
            return .fragment(fragment.bytes + box, videoTime: fragment.videoTime)
        case "moov":
            guard !self.headerDone else { throw .unexpected("a second moov") }
            self.header += box
            self.headerDone = true
            self.timescale = Self.timescale(ofTrack: self.videoTrack, inMoov: box)
            return .header(self.header)
        default:
            // ftyp before the moov belongs to the header; anything else (free, sidx, mfra) is not served.
            if !self.headerDone, type == "ftyp" { self.header += box }
            return nil
        }
    }

    /// The box at `offset` of `bytes`: its type and whole size; `nil` when its header is not all there.
    private static func box(in bytes: [UInt8], at offset: Int) throws(ReadError) -> (String, Int)? {
        guard bytes.count - offset >= 8 else { return nil }
        var size = Int(Self.uint32(bytes, offset))
        var headerSize = 8
        if size == 1 {
            guard bytes.count - offset >= 16 else { return nil }
            let large = Self.uint64(bytes, offset + 8)
            guard large <= UInt64(Self.maximumBoxSize) else { throw .badBox("a box of \(large) bytes") }
            size = Int(large)
            headerSize = 16
        }
        let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
        // Size 0 (to the end of the file) is what a writer leaves unfinished: never ffmpeg's fragments.
        guard size >= headerSize, size <= Self.maximumBoxSize else { throw .badBox("a \(type) box of \(size) bytes") }
        return (type, size)
    }

    /// The children of the box whose content spans `range` of `bytes`: each one's type and content range.
    private static func children(of bytes: [UInt8], in range: Range<Int>) -> [(String, Range<Int>)] {
        var found: [(String, Range<Int>)] = []
        var offset = range.lowerBound
        while range.upperBound - offset >= 8, found.count < 64 {
            let size = Int(Self.uint32(bytes, offset))
            guard size >= 8, size <= range.upperBound - offset else { break }
            found.append(
                (String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self), (offset + 8)..<(offset + size)))
            offset += size
        }
        return found
    }

    /// When the first sample of `track` in a `moof` is shown: its `tfdt`
    /// decode time plus the first `trun` sample's composition offset.
    package static func firstSampleTime(ofTrack track: UInt32, inMoof moof: [UInt8]) -> Int64? {
        for (type, traf) in Self.children(of: moof, in: 8..<moof.count) where type == "traf" {
            let boxes = Self.children(of: moof, in: traf)
            guard let tfhd = boxes.first(where: { $0.0 == "tfhd" })?.1, tfhd.count >= 8,
                Self.uint32(moof, tfhd.lowerBound + 4) == track,
                let tfdt = boxes.first(where: { $0.0 == "tfdt" })?.1, tfdt.count >= 8
            else { continue }
            let version = moof[tfdt.lowerBound]
            guard version == 0 || tfdt.count >= 12 else { return nil }
            let decode =
                version == 1
                ? Int64(truncatingIfNeeded: Self.uint64(moof, tfdt.lowerBound + 4))
                : Int64(Self.uint32(moof, tfdt.lowerBound + 4))
            return decode + (boxes.first { $0.0 == "trun" }.map { Self.firstCompositionOffset(moof, $0.1) } ?? 0)
        }
        return nil
    }

    /// The `mdhd` timescale of `track` in a `moov`: the `trak` whose `tkhd` names it.
    package static func timescale(ofTrack track: UInt32, inMoov moov: [UInt8]) -> Int64? {
        for (type, trak) in Self.children(of: moov, in: 8..<moov.count) where type == "trak" {
            let boxes = Self.children(of: moov, in: trak)
            guard let tkhd = boxes.first(where: { $0.0 == "tkhd" })?.1,
                let id = Self.fullBoxField(moov, tkhd, skipping: 2), id == track,
                let mdia = boxes.first(where: { $0.0 == "mdia" })?.1,
                let mdhd = Self.children(of: moov, in: mdia).first(where: { $0.0 == "mdhd" })?.1,
                let timescale = Self.fullBoxField(moov, mdhd, skipping: 2), timescale > 0
            else { continue }
            return Int64(timescale)
        }
        return nil
    }

    /// The 32-bit field of a full box (`tkhd`, `mdhd`) after its version and
    /// flags and `count` times, which are 32 bits in version 0 and 64 in version 1.
    private static func fullBoxField(_ bytes: [UInt8], _ box: Range<Int>, skipping count: Int) -> UInt32? {
        guard box.count >= 4 else { return nil }
        let offset = box.lowerBound + 4 + count * (bytes[box.lowerBound] == 1 ? 8 : 4)
        guard offset + 4 <= box.upperBound else { return nil }
        return Self.uint32(bytes, offset)
    }

    /// The first sample's composition offset in a `trun` (0 when it carries none).
    private static func firstCompositionOffset(_ bytes: [UInt8], _ trun: Range<Int>) -> Int64 {
        guard trun.count >= 8 else { return 0 }
        let version = bytes[trun.lowerBound]
        let flags = Self.uint32(bytes, trun.lowerBound) & 0xFF_FFFF
        guard flags & 0x800 != 0, Self.uint32(bytes, trun.lowerBound + 4) > 0 else { return 0 }
        // After the count: data offset and first-sample flags when present, then the first
        // sample's duration, size and flags when present, then its composition offset.
        var offset = trun.lowerBound + 8
        for (flag, length) in [(0x1, 4), (0x4, 4), (0x100, 4), (0x200, 4), (0x400, 4)] where flags & UInt32(flag) != 0 {
            offset += length
        }
        guard offset + 4 <= trun.upperBound else { return 0 }
        let raw = Self.uint32(bytes, offset)
        return version == 0 ? Int64(raw) : Int64(Int32(bitPattern: raw))
    }

    private static func uint32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 << 8 | UInt32(bytes[offset + $1]) }
    }

    private static func uint64(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        (0..<8).reduce(0) { $0 << 8 | UInt64(bytes[offset + $1]) }
    }
}
