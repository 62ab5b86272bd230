import CastKit
import Foundation

/// `cast play` in the foreground: a progress line a second (state,
/// position / duration, title, item n of m) until the media ends — the
/// last item finished, an error, or another sender stopped or replaced it —
/// or Ctrl-C, which stops it.
struct PlaybackWatch {
    let media: RemoteMediaClient
    let interrupted: Interruption
    let json: Bool
    /// What a conversion in progress adds to the line, if one runs.
    var conversion: (@Sendable () -> String?)?

    /// Where playback ended: the last position seen (with the media's
    /// length), or that it played to the end.
    struct End {
        var position: Double?
        var duration: Double?
        var isFinished = false
    }

    /// Follows playback of `count` items until it ends; throws when the receiver ends it with an error.
    func follow(count: Int) async throws -> End {
        var lastLine = ContinuousClock.now - .seconds(1)
        var started = false
        var end = End()
        while true {
            if self.interrupted.happened {
                end.position = self.media.approximateStreamPosition() ?? end.position
                Output.progress("stopping the media")
                _ = try? await self.media.stop()
                try self.finish("stopped")
                return end
            }
            let status = self.media.mediaStatus
            if let status {
                if status.playerState != .idle {
                    started = true
                    end.position = self.media.approximateStreamPosition() ?? status.currentTime
                    end.duration = status.media?.duration ?? end.duration
                }
                if status.playerState == .idle, started || status.idleReason != nil {
                    switch status.idleReason {
                    case .error:
                        throw CommandFailure(.mediaFailed, "the receiver stopped playing with an error")
                    case .finished:
                        try self.finish("finished")
                        return End(isFinished: true)
                    default:
                        try self.finish("ended (\(status.idleReason?.rawValue.lowercased() ?? "idle"))")
                        return end
                    }
                }
                if ContinuousClock.now - lastLine >= .seconds(1) {
                    lastLine = .now
                    Output.progress(self.line(status, count: count))
                }
            } else if started {
                try self.finish("ended")
                return end
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    private func line(_ status: MediaStatus, count: Int) -> String {
        let position = self.media.approximateStreamPosition() ?? status.currentTime
        let duration = status.media?.duration.map { " / " + Self.clock($0) } ?? ""
        let title = status.media?.metadata?.string(forKey: .title).map { "  \($0)" } ?? ""
        var item = ""
        if count > 1, let current = status.currentItemID, let items = status.items,
            let index = items.firstIndex(where: { $0.itemID == current })
        {
            item = "  (\(index + 1)/\(count))"
        }
        let converting = self.conversion?().map { "  [\($0)]" } ?? ""
        return
            "\(status.playerState.rawValue.lowercased()) \(Self.clock(position))\(duration)\(title)\(item)\(converting)"
    }

    private func finish(_ outcome: String) throws {
        try Output.result(json: ["outcome": .string(outcome)], text: outcome, asJSON: self.json)
    }

    /// `m:ss` or `h:mm:ss`.
    static func clock(_ seconds: Double) -> String {
        let total = Int(max(0, seconds.isFinite ? seconds : 0))
        let (hours, minutes, rest) = (total / 3_600, total / 60 % 60, total % 60)
        let padded = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(padded(minutes)):\(padded(rest))" : "\(minutes):\(padded(rest))"
    }
}
