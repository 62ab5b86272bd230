import CastKit
import CastMediaServer
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
    /// The server of local files, whose requests tell whether the receiver fetched anything.
    var server: MediaServer?
    /// How long BUFFERING may last before the media is loaded again at its
    /// position, once, and then given up on.
    var bufferingTimeout: Duration = .seconds(20)

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
        var bufferingSince: ContinuousClock.Instant?
        var reloaded = false
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
                if status.playerState == .buffering {
                    let since = bufferingSince ?? .now
                    bufferingSince = since
                    if ContinuousClock.now - since >= self.bufferingTimeout {
                        try await self.reload(status, position: end.position, again: reloaded)
                        reloaded = true
                        bufferingSince = .now
                    }
                } else {
                    bufferingSince = nil
                }
                if status.playerState == .idle, started || status.idleReason != nil {
                    switch status.idleReason {
                    case .error:
                        throw self.decodingFailure()
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

    /// BUFFERING for ``bufferingTimeout``: a receiver that never fetched
    /// anything cannot reach this machine; else the media is loaded again at
    /// its position, once (a stall some receivers do not recover from), and
    /// given up on when it stalls `again`.
    private func reload(_ status: MediaStatus, position: Double?, again: Bool) async throws {
        let waited = "\(Int(self.bufferingTimeout / .seconds(1))) s"
        if let server = self.server, server.recentRequests.isEmpty {
            throw CommandFailure(
                .mediaFailed,
                "the receiver has been buffering for \(waited) and never fetched anything from "
                    + "\(server.baseURL.absoluteString): can it reach this machine (a firewall, another network or "
                    + "interface)?")
        }
        let at = position ?? status.currentTime
        guard !again, let information = status.media else {
            throw CommandFailure(
                .mediaFailed,
                "the receiver kept buffering at \(Self.clock(at)) for \(waited), even after loading it again: it "
                    + "cannot fetch the media fast enough (a weak network link, or a bitrate too high for it"
                    + (self.server == nil ? ")" : "; --convert always makes a smaller H.264)"))
        }
        Output.progress("still buffering after \(waited): loading it again at \(Self.clock(at))")
        _ = try await self.media.load(
            MediaLoadRequestData(
                mediaInformation: information, currentTime: at, activeTrackIDs: status.activeTrackIDs))
    }

    /// IDLE with reason ERROR: the receiver could not play what it fetched.
    private func decodingFailure() -> CommandFailure {
        var message =
            "the receiver stopped playing with an error: it most likely cannot decode this media "
            + "(its codecs, profile or bitrate)"
        if let server = self.server {
            message +=
                server.recentRequests.isEmpty
                ? "; it never fetched anything from \(server.baseURL.absoluteString): can it reach this machine?"
                : "; --convert always makes an H.264 and AAC copy every Cast device plays"
        }
        return CommandFailure(.mediaFailed, message)
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
