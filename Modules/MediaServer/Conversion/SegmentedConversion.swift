import Foundation
import NIOConcurrencyHelpers

/// A film ffmpeg converts into HLS segments on demand: the playlist lists
/// every segment from the start (``SegmentLayout``), and a segment is made
/// when it is asked for, as media servers do (Jellyfin, Plex).
///
/// One ffmpeg run at a time writes segments in order from where it
/// started. A request for a segment the run will reach soon waits for it;
/// one before the run's start or far past where it is (a seek) stops it
/// and starts another there. Segments made are kept and served again
/// (a seek back costs nothing), at most ``kept`` of them, the farthest
/// from what the receiver asks for dropped first. A run that gets
/// ``ahead`` segments past the last request pauses (SIGSTOP) until the
/// receiver catches up, so ffmpeg never converts the whole film for a
/// viewer who watched ten minutes. Everything it wrote is in its own
/// working folder, deleted by ``cancel()``.
actor SegmentedConversion {
    /// Where each segment begins and ends.
    let layout: SegmentLayout
    /// What the film's URL serves: the VOD playlist, naming the segments
    /// `0.ts`, `1.ts`…; with sound renditions, the master playlist.
    let playlist: [UInt8]
    /// With sound renditions, the media playlists beside the master
    /// playlist, by name: the video's (segments `N.ts`) and each sound's
    /// (segments `aK-N.ts`).
    let mediaPlaylists: [String: [UInt8]]
    /// What each output's segment files are named before their index: `""` for the main segments, then each
    /// sound rendition's.
    let outputs: [String]
    /// Whether the segments are fragmented MP4 (`N.m4s`, after the initialization segment), not MPEG-TS.
    let fragmented: Bool
    /// The initialization segment's name, beside the playlist, when the segments are fragmented MP4.
    static let initialization = "init.mp4"

    /// How many segments a run may get ahead of the last request before it pauses (8: 48 s).
    let ahead: Int
    /// How far past what the run has made a request may be and still wait for it
    /// (at 6 s a segment, 18 s of film: less than a restart's cost even at real time).
    static let reach = 3
    /// The most segments kept in the working folder (24: 2 minutes 24 s of film).
    let kept: Int
    /// The longest a request waits for its segment.
    static let patience: Duration = .seconds(60)
    /// How often a waiting request looks for its segment: a tenth of the
    /// time `cast play` takes to its first segment (~1 s) was spent between
    /// looks at 50 ms.
    static let poll: Duration = .milliseconds(10)

    private let input: MediaInput
    private let plan: ConversionPlan
    private let ffmpeg: URL
    let startTime: Double
    let folder: URL
    let clock: any Clock<Duration>

    struct Run {
        let process: FFmpegProcess
        /// The segment the run was started for.
        let first: Int
        let folder: URL
        /// The next file the run writes that has not been taken yet: `first - 1` (the part before
        /// the first boundary) for a run after the first. For fragmented MP4, the segment whose
        /// fragments are being gathered.
        var next: Int
        /// Fragmented MP4: each output's file (the video's, then each sound
        /// rendition's), what was read of it and the segment it is gathering.
        var fragmentFiles: [FragmentFile] = []
    }

    /// One fragmented MP4 file a run writes, as read so far.
    struct FragmentFile {
        var reader = FragmentedMP4Reader()
        var readOffset: Int64 = 0
        /// The segment whose fragments are being gathered.
        var next: Int
    }

    var run: Run?
    var made: Set<Int> = []
    var requested = 0
    private var runs = 0
    var failure: String?
    /// Whether ``cancel()`` was called, and the run's process for it to stop: read without waiting.
    private let ending = NIOLockedValueBox((closed: false, process: FFmpegProcess?.none))
    private var watching: Task<Void, Never>?
    private let snapshot = NIOLockedValueBox(
        SegmentedProgress(progress: ConversionProgress(converted: .zero, isFinished: false), runStarts: []))

    /// A conversion of `input` as `plan` says, cut as `layout` says, written into `folder` (made here).
    ///
    /// - Throws: ``MediaServerError/Code-swift.struct/conversionFailed`` when the folder cannot be made.
    init(
        input: MediaInput, plan: ConversionPlan, layout: SegmentLayout, startTime: Double, ffmpeg: URL, folder: URL,
        ahead: Int = 8, kept: Int = 24, clock: any Clock<Duration> = ContinuousClock()
    ) throws(MediaServerError) {
        self.ahead = max(1, ahead)
        self.kept = max(self.ahead + 2, kept)
        self.input = input
        self.plan = plan
        self.layout = layout
        self.startTime = startTime
        self.ffmpeg = ffmpeg
        self.folder = folder
        self.clock = clock
        let main =
            plan.segmentsAreFragmentedMP4
            ? Array(layout.playlist(map: Self.initialization) { "\($0).m4s" }.utf8)
            : Array(layout.playlist { "\($0).ts" }.utf8)
        self.fragmented = plan.segmentsAreFragmentedMP4
        if plan.hasSoundRenditions {
            let count = plan.soundRenditions.count
            self.outputs = [""] + (1...count).map(ConversionPlan.renditionPrefix)
            self.playlist = Array(MasterPlaylist.text(of: plan).utf8)
            var playlists = [MasterPlaylist.videoName: main]
            for number in 1...count {
                let prefix = ConversionPlan.renditionPrefix(number)
                let playlist =
                    plan.segmentsAreFragmentedMP4
                    ? layout.playlist(map: prefix + Self.initialization) { "\(prefix)\($0).m4s" }
                    : layout.playlist { "\(prefix)\($0).ts" }
                playlists[MasterPlaylist.renditionName(number)] = Array(playlist.utf8)
            }
            self.mediaPlaylists = playlists
        } else {
            self.outputs = [""]
            self.playlist = main
            self.mediaPlaylists = [:]
        }
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw MediaServerError(.conversionFailed, "cannot make \(folder.path)", cause: error)
        }
    }

    /// How far it is, and where each ffmpeg run started (at most the last 64), read without waiting.
    nonisolated var progress: SegmentedProgress { self.snapshot.withLockedValue { $0 } }

    /// The path of segment `index` of output `output` (0 for the main
    /// segments, then each sound rendition's) once it is made, starting or
    /// moving ffmpeg as needed; `nil` when there is no such segment.
    ///
    /// - Throws: ``MediaServerError/Code-swift.struct/conversionFailed``
    ///   when ffmpeg fails or the segment takes longer than ``patience``;
    ///   ``MediaServerError/Code-swift.struct/unavailable`` once cancelled,
    ///   or when a request for another segment came since and moved ffmpeg
    ///   away from this one.
    func segment(_ index: Int, output: Int = 0) async throws(MediaServerError) -> String? {
        guard index >= 0, index < self.layout.count, self.outputs.indices.contains(output) else { return nil }
        self.requested = index
        // Counted in the polls' own sleeps, so that a test's clock drives it too.
        var waited = Duration.zero
        while true {
            if self.isClosed { throw MediaServerError(.unavailable, "the conversion was stopped") }
            self.collect()
            if self.made.contains(index) { return self.path(of: index, output: output) }
            if let failure = self.failure { throw MediaServerError(.conversionFailed, failure) }
            // The run reaches it soon: wait (a run that passed it, when it was dropped, does not).
            if let run = self.run, run.first <= index, run.next <= index, index <= max(run.next, run.first) + Self.reach
            {
                run.process.pause(false)
            } else if index == self.requested {
                try self.start(at: index)
            } else {
                // A later request (a seek) moved ffmpeg elsewhere: moving it back would only
                // take turns with that request until both gave up. The receiver asks again.
                throw MediaServerError(
                    .unavailable, "segment \(index) was overtaken by a request for segment \(self.requested)")
            }
            self.watch()
            guard waited < Self.patience else {
                throw MediaServerError(
                    .conversionFailed, "segment \(index) was not made within \(Self.patience.components.seconds) s")
            }
            try? await self.clock.sleep(for: Self.poll)
            waited += Self.poll
        }
    }

    /// Starts converting from segment `index` before it is asked for, unless
    /// a run is already going (a request came first).
    ///
    /// - Throws: ``MediaServerError/Code-swift.struct/conversionFailed`` when ffmpeg cannot start.
    func begin(at index: Int) throws(MediaServerError) {
        guard index >= 0, index < self.layout.count, self.run == nil, self.made.isEmpty, !self.isClosed else { return }
        self.requested = index
        try self.start(at: index)
        self.watch()
    }

    /// Stops ffmpeg and deletes everything written, at once (without
    /// waiting for a request in progress, which then fails).
    nonisolated func cancel() {
        let process = self.ending.withLockedValue { ending in
            ending.closed = true
            defer { ending.process = nil }
            return ending.process
        }
        process?.stop()
        try? FileManager.default.removeItem(at: self.folder)
    }

    /// Whether ``cancel()`` was called.
    nonisolated var isClosed: Bool { self.ending.withLockedValue { $0.closed } }

    /// Segment `index`'s file of output `output` once made.
    func path(of index: Int, output: Int = 0) -> String {
        self.folder.appendingPathComponent("\(self.outputs[output])\(index).\(self.fragmented ? "m4s" : "ts")").path
    }

    /// Stops the run (if any) and starts one that makes segment `index` first.
    private func start(at index: Int) throws(MediaServerError) {
        if let run = self.run {
            run.process.stop()
            try? FileManager.default.removeItem(at: run.folder)
            self.run = nil
        }
        self.runs += 1
        let runFolder = self.folder.appendingPathComponent("run-\(self.runs)")
        do {
            try FileManager.default.createDirectory(at: runFolder, withIntermediateDirectories: true)
        } catch {
            throw MediaServerError(.conversionFailed, "cannot make \(runFolder.path)", cause: error)
        }
        let arguments =
            self.fragmented
            ? self.plan.fragmentArguments(
                input: self.input, layout: self.layout, from: index,
                output: runFolder.appendingPathComponent(Self.fragmentedOutput).path)
            : self.plan.segmentArguments(
                input: self.input, layout: self.layout, from: index, startTime: self.startTime, folder: runFolder.path)
        let process = try FFmpegProcess(self.ffmpeg, arguments: arguments)
        let closed = self.ending.withLockedValue { ending in
            if !ending.closed { ending.process = process }
            return ending.closed
        }
        guard !closed else {
            process.stop()
            throw MediaServerError(.unavailable, "the conversion was stopped")
        }
        let next = index > 0 ? index - 1 : 0
        self.run = Run(
            process: process, first: index, folder: runFolder, next: next,
            fragmentFiles: self.fragmented ? self.outputs.map { _ in FragmentFile(next: next) } : [])
        self.snapshot.withLockedValue { $0.runStarts = ($0.runStarts + [index]).suffix(64) }
    }

    /// Polls the run every 100 ms while it runs, so that it pauses when far
    /// enough ahead even when no request is waiting.
    private func watch() {
        guard self.watching == nil else { return }
        self.watching = Task { [clock] in
            while !Task.isCancelled {
                try? await clock.sleep(for: .milliseconds(100))
                guard self.collectWhileRunning() else { break }
            }
        }
    }

    private func collectWhileRunning() -> Bool {
        self.collect()
        guard self.run != nil, !self.isClosed else {
            self.watching = nil
            return false
        }
        return true
    }

    /// Takes what the run finished into the folder, notes its end, pauses
    /// or resumes it, and drops the segments farthest from the receiver.
    func collect() {
        guard var run = self.run else { return }
        let status = run.process.status
        let fileManager = FileManager.default
        if self.fragmented {
            self.collectFragments(of: &run, finished: status == .finished)
        }
        while !self.fragmented, run.next < self.layout.count {
            let written = self.outputs.map { run.folder.appendingPathComponent("\($0)\(run.next).ts").path }
            // A segment is whole once ffmpeg opened the next one of every output, or ended well.
            let whole = self.outputs.indices.allSatisfy { output in
                fileManager.fileExists(
                    atPath: run.folder.appendingPathComponent("\(self.outputs[output])\(run.next + 1).ts").path)
                    || (status == .finished && fileManager.fileExists(atPath: written[output]))
            }
            guard whole else { break }
            // The part before the first boundary, and a segment an earlier run made (served
            // already, perhaps), are dropped: what was served stays what is served.
            if run.next < run.first || self.made.contains(run.next) {
                for path in written { unlink(path) }
            } else if self.outputs.indices.allSatisfy({ rename(written[$0], self.path(of: run.next, output: $0)) == 0 })
            {
                self.made.insert(run.next)
            }
            run.next += 1
        }
        self.run = run
        switch status {
        case .running:
            run.process.pause(run.next > self.requested + self.ahead)
        case .finished, .stopped:
            try? fileManager.removeItem(at: run.folder)
            self.run = nil
        case .failed(let why):
            try? fileManager.removeItem(at: run.folder)
            self.run = nil
            self.failure = why
        }
        while self.made.count > self.kept, let farthest = self.made.max(by: { self.distance($0) < self.distance($1) }) {
            self.made.remove(farthest)
            for output in self.outputs.indices { unlink(self.path(of: farthest, output: output)) }
        }
        let made = self.made
        let requested = self.requested
        let layout = self.layout
        let running = self.run != nil
        let paused = self.run?.process.isPaused ?? false
        let failure = self.failure
        self.snapshot.withLockedValue { snapshot in
            // How far the segments from the last request on are made.
            var end = requested
            while made.contains(end) { end += 1 }
            snapshot.progress = ConversionProgress(
                converted: .milliseconds(Int64((end > requested ? layout.bounds(of: end - 1).end : 0) * 1_000)),
                isFinished: !running && failure == nil, failure: failure)
            snapshot.made = made.count
            snapshot.isPaused = paused
        }
    }

    /// How far segment `index` is from the last request: segments behind it count double.
    private func distance(_ index: Int) -> Int {
        index < self.requested ? 2 * (self.requested - index) : index - self.requested
    }
}

/// What a ``SegmentedConversion`` has done so far.
struct SegmentedProgress: Sendable, Hashable {
    /// How far it is, as a one-file conversion says it.
    var progress: ConversionProgress
    /// The segment each ffmpeg run started at, in order (the last 64).
    var runStarts: [Int]
    /// How many segments are in the working folder.
    var made = 0
    /// Whether ffmpeg is paused, far enough ahead of the requests.
    var isPaused = false
}
