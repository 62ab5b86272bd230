import CastKit
import Foundation
import NIOConcurrencyHelpers

/// Where the command's words go: progress and errors to stderr, results to
/// stdout — or, for a command a test runs in its own process, into
/// ``captured``.
enum Output {
    /// What a command run in a test's process writes, instead of the standard streams.
    final class Captured: Sendable {
        private let lines = NIOLockedValueBox((standardOutput: [String](), standardError: [String]()))

        /// Lines meant for stdout, in order.
        var standardOutput: [String] { self.lines.withLockedValue { $0.standardOutput } }
        /// Lines meant for stderr, in order.
        var standardError: [String] { self.lines.withLockedValue { $0.standardError } }

        fileprivate func append(_ line: String, toStandardError: Bool) {
            self.lines.withLockedValue {
                if toStandardError { $0.standardError.append(line) } else { $0.standardOutput.append(line) }
            }
        }
    }

    /// Set by a test around a command it runs in its own process.
    @TaskLocal static var captured: Captured?

    /// One line of progress or an error, on stderr.
    static func progress(_ line: String) {
        if let captured = Self.captured { return captured.append(line, toStandardError: true) }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// One line of a long-running command's log (`cast speakers`), on
    /// stderr: with the local time in front where stderr is a file or a
    /// pipe, so a log read later says when; not on a terminal, nor in
    /// systemd's journal (`JOURNAL_STREAM`), which stamps each line itself.
    static func logLine(_ line: String) {
        guard Self.captured == nil, isatty(STDERR_FILENO) == 0,
            ProcessInfo.processInfo.environment["JOURNAL_STREAM"] == nil
        else { return Self.progress(line) }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = .current
        Self.progress("\(formatter.string(from: Date())) \(line)")
    }

    /// One line of the command's result, on stdout.
    static func line(_ line: String) {
        if let captured = Self.captured { return captured.append(line, toStandardError: false) }
        print(line)
    }

    /// The command's result on stdout: `json` with `--json`, else `text`.
    static func result(json: JSONValue, text: @autoclosure () -> String, asJSON: Bool) throws {
        Self.line(asJSON ? try json.jsonText() : text())
    }
}

extension ReceiverStatus {
    /// The status in a few lines for people.
    var text: String {
        var lines = self.applications.map { application in
            "app \(application.displayName) (\(application.appID)) session \(application.sessionID ?? "-")"
        }
        if lines.isEmpty { lines.append("no app running") }
        let level = self.volume.level.map { String(format: "%.2f", $0) } ?? "?"
        lines.append("volume \(level)\(self.volume.isMuted == true ? " (muted)" : "")")
        return lines.joined(separator: "\n")
    }
}

extension MediaStatus {
    /// One line for people, and one per track when the media names its tracks (`cast tracks` takes their ids).
    var text: String {
        let line =
            "\(self.playerState.rawValue) \(self.media?.contentID ?? "-") at \(String(format: "%.1f", self.currentTime)) s"
            + (self.playbackRate != 1 ? " ×\(self.playbackRate)" : "")
        let tracks = (self.media?.tracks ?? []).map { track in
            let active = self.activeTrackIDs?.contains(track.trackID) == true ? " (on)" : ""
            let named = track.name.flatMap { $0 == track.language ? nil : "\"\($0)\"" }
            let name = [track.language, named].compactMap { $0 }.joined(separator: " ")
            return "  track \(track.trackID): \(track.kind.rawValue.lowercased()) \(name)\(active)"
        }
        return ([line] + tracks).joined(separator: "\n")
    }
}
