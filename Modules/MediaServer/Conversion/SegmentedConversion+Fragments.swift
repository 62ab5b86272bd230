import Foundation

/// A copied HEVC film's HLS segments: each ffmpeg run writes one
/// fragmented MP4 with a fragment per video key frame; the fragments are
/// gathered into the layout's segments (cut at key frames too) by when
/// their first video sample shows, and the header becomes the
/// initialization segment every segment plays after.
extension SegmentedConversion {
    /// The run's file, in its folder.
    static let fragmentedOutput = "stream.mp4"

    /// The initialization segment's path of output `output` (0 for the
    /// video, then each sound rendition's) once a run wrote it, starting
    /// ffmpeg at the last segment asked for when nothing runs; `nil` when
    /// the segments are MPEG-TS or there is no such output.
    ///
    /// - Throws: as ``segment(_:output:)`` does.
    func initialization(output: Int = 0) async throws(MediaServerError) -> String? {
        guard self.fragmented, self.outputs.indices.contains(output) else { return nil }
        let path = self.folder.appendingPathComponent(self.outputs[output] + Self.initialization).path
        var waited = Duration.zero
        while !FileManager.default.fileExists(atPath: path) {
            if self.isClosed { throw MediaServerError(.unavailable, "the conversion was stopped") }
            if self.run == nil, self.failure == nil { try self.begin(at: max(0, self.requested)) }
            self.collect()
            if let failure = self.failure { throw MediaServerError(.conversionFailed, failure) }
            guard waited < Self.patience else {
                throw MediaServerError(.conversionFailed, "the stream's header was not written within 60 s")
            }
            try? await self.clock.sleep(for: Self.poll)
            waited += Self.poll
        }
        return path
    }

    /// Reads what the run appended to each of its files (``collectFragments(of:output:finished:)``).
    func collectFragments(of run: inout Run, finished: Bool) {
        for output in run.fragmentFiles.indices {
            self.collectFragments(of: &run, output: output, finished: finished)
        }
        // The video's segment paces the run, as MPEG-TS segments do.
        run.next = run.fragmentFiles.first?.next ?? run.next
    }

    /// Reads what the run appended to output `output`'s file: the header
    /// saved once as that output's initialization segment, each fragment
    /// appended to the segment it shows in; a segment is made when a
    /// fragment of a later one comes, or the run ended. What was read is
    /// freed on disk (the file's blocks punched out), so a run that copies
    /// a whole film holds little.
    private func collectFragments(of run: inout Run, output: Int, finished: Bool) {
        let file = run.folder.appendingPathComponent(self.outputs[output] + Self.fragmentedOutput).path
        let descriptor = open(file, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        // Read only what ffmpeg added since the last look (the waiting requests look every 10 ms).
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return }
        let added = Int(Int64(status.st_size) - run.fragmentFiles[output].readOffset)
        var chunk = [UInt8](repeating: 0, count: min(max(added, 0), 1 << 20))
        while added > 0 {
            let offset = run.fragmentFiles[output].readOffset
            let count = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
            guard count > 0 else { break }
            run.fragmentFiles[output].readOffset += Int64(count)
            do {
                for part in try run.fragmentFiles[output].reader.feed(chunk[..<count]) {
                    self.take(part, into: &run, output: output)
                }
            } catch {
                run.process.stop()
                self.failure = "ffmpeg wrote a fragmented MP4 that cannot be read: \(error)"
                return
            }
        }
        // Blocks wholly read are given back (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE).
        let read = run.fragmentFiles[output].readOffset / 4_096 * 4_096
        if added > 0, read > 0, let punch = Self.fallocate { _ = punch(descriptor, 0x02 | 0x01, off_t(0), off_t(read)) }
        if finished { self.finishSegment(of: &run, output: output) }
    }

    /// glibc's `fallocate(2)`, which Swift's Glibc module does not declare
    /// (it needs `_GNU_SOURCE`); `nil` where the C library lacks it, and then
    /// the run's file keeps what was read until the run ends.
    private static let fallocate: (@convention(c) (Int32, Int32, off_t, off_t) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "fallocate") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32, off_t, off_t) -> Int32).self)
    }()

    /// Places one part of output `output`'s file.
    private func take(_ part: FragmentedMP4Reader.Part, into run: inout Run, output: Int) {
        let prefix = self.outputs[output]
        switch part {
        case .header(let bytes):
            let path = self.folder.appendingPathComponent(prefix + Self.initialization)
            // Every run's header is the same (no edit list, the same timescales): the first is kept.
            if !FileManager.default.fileExists(atPath: path.path) { try? Data(bytes).write(to: path, options: .atomic) }
        case .fragment(let bytes, let time):
            let file = run.fragmentFiles[output]
            let timescale = file.reader.timescale ?? Int64(ConversionPlan.fragmentTimescale)
            let segment =
                time.map { time in
                    let seconds = Double(time) / Double(max(1, timescale))
                    // A millisecond late: a key frame's time printed to the microsecond may lie just before its cut.
                    return self.layout.index(
                        containing: seconds - self.startTime - ConversionPlan.segmentTimestampOffset + 0.001)
                } ?? file.next
            if segment != file.next {
                self.finishSegment(of: &run, output: output)
                run.fragmentFiles[output].next = segment
            }
            // The part before the run's first segment, and a segment made already, are dropped.
            guard segment >= run.first, !self.made.contains(segment) else { return }
            let part = run.folder.appendingPathComponent("\(prefix)\(segment).part").path
            let descriptor = open(part, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        }
    }

    /// Output `output`'s segment being gathered is whole: moved to its
    /// place; the segment is made once every output's is.
    private func finishSegment(of run: inout Run, output: Int) {
        let index = run.fragmentFiles[output].next
        let part = run.folder.appendingPathComponent("\(self.outputs[output])\(index).part").path
        guard FileManager.default.fileExists(atPath: part) else { return }
        guard !self.made.contains(index), rename(part, self.path(of: index, output: output)) == 0 else {
            unlink(part)
            return
        }
        if self.outputs.indices.allSatisfy({ FileManager.default.fileExists(atPath: self.path(of: index, output: $0)) })
        {
            self.made.insert(index)
        }
    }
}
