import Foundation

/// How far a conversion is.
public struct ConversionProgress: Sendable, Hashable {
    /// How much of the media ffmpeg has written.
    public var converted: Duration
    /// Whether ffmpeg finished: the file is whole, and served with byte ranges.
    public var isFinished: Bool
    /// Why it failed, if it did.
    public var failure: String?
}

/// One file ffmpeg converts into fragmented MP4 in a working folder, served
/// while it grows: a receiver starts playing after the first fragment, not
/// after the whole film.
final class MediaConversion: Sendable {
    /// The file being written.
    let output: String
    private let run: FFmpegProcess

    /// Starts ffmpeg on `input` as `plan` says, writing into `folder`.
    ///
    /// - Throws: ``MediaServerError/Code-swift.struct/conversionFailed`` when ffmpeg cannot be started.
    init(input: MediaInput, plan: ConversionPlan, ffmpeg: URL, folder: URL, name: String) throws(MediaServerError) {
        self.output = folder.appendingPathComponent(name).path
        self.run = try FFmpegProcess(ffmpeg, arguments: plan.ffmpegArguments(input: input, output: self.output))
    }

    /// How far it is.
    var progress: ConversionProgress {
        var progress = ConversionProgress(converted: self.run.converted, isFinished: false, failure: nil)
        switch self.run.status {
        case .running:
            break
        case .finished:
            progress.isFinished = true
        case .stopped:
            progress.failure = "cancelled"
        case .failed(let why):
            progress.failure = why
        }
        return progress
    }

    /// The progress once ffmpeg has made its output file (it reads the
    /// input's head first), has ended, or after 30 s.
    func started() async -> ConversionProgress {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let progress = self.progress
            if progress.isFinished || progress.failure != nil || access(self.output, F_OK) == 0
                || ContinuousClock.now >= deadline
            {
                return progress
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Stops ffmpeg (if still running) and deletes what it wrote.
    func cancel() {
        self.run.stop()
        unlink(self.output)
    }
}
