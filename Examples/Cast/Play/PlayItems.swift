import CastMediaServer
import Foundation

/// One thing `cast play` plays: a URL the receiver fetches, or a local file
/// the command serves, with what the playlist or folder says of it.
struct PlayItem {
    enum Source {
        case url(String)
        case file(URL)
    }

    var source: Source
    var title: String?
    /// Subtitles: a URL, or a local `.srt` / `.vtt` file.
    var subtitles: Source?

    /// The title shown: the playlist's, else the file or URL's name without its extension.
    var displayTitle: String {
        if let title { return title }
        switch self.source {
        case .file(let file): return file.deletingPathExtension().lastPathComponent
        case .url(let url): return URL(string: url)?.deletingPathExtension().lastPathComponent ?? url
        }
    }

    /// What `cast play` was given — URLs, files, folders (their media
    /// files in name order, numbers compared as numbers) and playlists —
    /// as items in order. A local file's subtitles are found beside it:
    /// the same name with `.srt` or `.vtt`.
    static func resolve(_ arguments: [String]) throws -> [PlayItem] {
        var items: [PlayItem] = []
        for argument in arguments {
            if let scheme = argument.firstRange(of: "://").map({ argument[..<$0.lowerBound] }), scheme != "file" {
                items.append(PlayItem(source: .url(argument)))
                continue
            }
            let file =
                argument.hasPrefix("file://")
                ? (URL(string: argument) ?? URL(fileURLWithPath: argument))
                : URL(fileURLWithPath: (argument as NSString).expandingTildeInPath)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isFolder) else {
                throw CommandFailure(.badInput, "\(argument): no such file or folder")
            }
            if isFolder.boolValue {
                let names = try FileManager.default.contentsOfDirectory(atPath: file.path)
                    .filter { MediaContentType.isMedia($0) && !$0.hasPrefix(".") }
                    .sorted { $0.compare($1, options: [.numeric, .caseInsensitive]) == .orderedAscending }
                guard !names.isEmpty else { throw CommandFailure(.badInput, "\(argument): no media files in it") }
                items += names.map { Self.local(file.appendingPathComponent($0)) }
            } else if Playlist.isPlaylist(file) {
                items += try Playlist(contentsOf: file).entries.map { entry in
                    switch entry.location {
                    case .url(let url): PlayItem(source: .url(url), title: entry.title)
                    case .file(let path): Self.local(path, title: entry.title)
                    }
                }
            } else {
                items.append(Self.local(file))
            }
        }
        return items
    }

    /// A local file, with the subtitles beside it if any.
    private static func local(_ file: URL, title: String? = nil) -> PlayItem {
        let base = file.deletingPathExtension()
        let subtitles = ["srt", "vtt", "SRT", "VTT"].lazy.map { base.appendingPathExtension($0) }
            .first { FileManager.default.fileExists(atPath: $0.path) }
        return PlayItem(source: .file(file), title: title, subtitles: subtitles.map { .file($0) })
    }
}
