import CastKit
import CastLocalMedia
import CastMediaServer
import Foundation

/// `cast play` in the foreground: the SDK's ``LocalMediaPlayback`` as a progress
/// line a second (state, position / duration, title, item n of m, the
/// conversion), until the media ends or Ctrl-C, which stops it.
struct PlaybackLines {
    let playback: LocalMediaPlayback
    let interrupted: Interruption
    let json: Bool
    /// How long BUFFERING may last before the media is loaded again (for the line that says so).
    let bufferingTimeout: Duration
    /// Whether local files are served (the advice names `--convert`).
    let servesFiles: Bool
    let itemCount: Int

    /// Prints until playback ends; its end. Throws when the receiver ends it with an error.
    func follow() async throws -> PlaybackWatch.End {
        let stopper = Task { [playback, interrupted] in
            while !interrupted.happened { try await Task.sleep(for: .milliseconds(100)) }
            Output.progress("stopping the media")
            playback.stop()
        }
        defer { stopper.cancel() }
        do {
            for try await event in self.playback.events() {
                switch event {
                case .progress(let progress):
                    Output.progress(self.line(progress))
                case .reloading(let position):
                    Output.progress(
                        "still buffering after \(Int(self.bufferingTimeout / .seconds(1))) s: loading it again at "
                            + PlaybackWatch.clock(position))
                case .ended(let end):
                    try self.finish(end.outcome)
                    return end
                }
            }
        } catch let error as LocalMediaError {
            throw CommandFailure(.mediaFailed, self.advised(error))
        }
        return PlaybackWatch.End(outcome: .ended(nil))
    }

    /// `error` with what this command's options can do about it.
    private func advised(_ error: LocalMediaError) -> String {
        guard self.servesFiles else { return error.message }
        switch error.code {
        case .undecodable:
            return error.message + "; --convert always makes an H.264 and AAC copy every Cast device plays"
        case .stalled: return error.message + "; --convert always makes a smaller H.264"
        default: return error.message
        }
    }

    private func line(_ progress: PlaybackWatch.Progress) -> String {
        let duration = progress.duration.map { " / " + PlaybackWatch.clock($0) } ?? ""
        let title = progress.title.map { "  \($0)" } ?? ""
        let item = progress.itemNumber.map { "  (\($0)/\(self.itemCount))" } ?? ""
        var converting = ""
        if let conversion = progress.conversion {
            converting =
                conversion.failure.map { "  [conversion failed: \($0)]" }
                ?? "  [converted \(PlaybackWatch.clock(conversion.converted / .seconds(1)))]"
        }
        return "\(progress.playerState.rawValue.lowercased()) \(PlaybackWatch.clock(progress.position))"
            + "\(duration)\(title)\(item)\(converting)"
    }

    private func finish(_ outcome: PlaybackWatch.End.Outcome) throws {
        let text =
            switch outcome {
            case .finished: "finished"
            case .stopped: "stopped"
            case .ended(let reason?): "ended (\(reason.rawValue.lowercased()))"
            case .ended(nil): "ended"
            }
        try Output.result(json: ["outcome": .string(text)], text: text, asJSON: self.json)
    }
}
