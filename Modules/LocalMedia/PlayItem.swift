import CastMediaServer
public import Foundation

/// One thing to play: a URL the receiver fetches, or a local file served
/// to it, with what the playlist or folder says of it.
public struct PlayItem: Sendable, Hashable {
    /// Where an item, or its subtitles, is.
    public enum Source: Sendable, Hashable {
        /// A URL the receiver fetches itself.
        case url(String)
        /// A local file, served to the receiver.
        case file(URL)
    }

    /// Where the item is.
    public var source: Source
    /// The title a playlist gives it.
    public var title: String?
    /// Subtitles: a URL, or a local `.srt` / `.vtt` file.
    public var subtitles: Source?

    /// Creates an item.
    public init(source: Source, title: String? = nil, subtitles: Source? = nil) {
        self.source = source
        self.title = title
        self.subtitles = subtitles
    }

    /// The title shown: the playlist's, else the file or URL's name without its extension.
    public var displayTitle: String {
        if let title { return title }
        switch self.source {
        case .file(let file): return file.deletingPathExtension().lastPathComponent
        case .url(let url): return URL(string: url)?.deletingPathExtension().lastPathComponent ?? url
        }
    }

    /// Whether the item or its subtitles are local files, which this
    /// machine serves (``LocalMediaPlayback`` then runs a server, and the
    /// app stays while they play).
    public var isLocal: Bool {
        if case .file = self.source { return true }
        if case .file? = self.subtitles { return true }
        return false
    }

    /// The URL, when its name says no media type (`MediaContentType.guess(from:)`):
    /// a web page, whose video yt-dlp finds; `nil` for a file or a media URL.
    public var webPage: String? {
        guard case .url(let url) = self.source, MediaContentType.guess(from: url) == nil else { return nil }
        return url
    }

    /// What a user names — URLs, files, folders (their media files in name
    /// order, numbers compared as numbers) and playlists (M3U, PLS) — as
    /// items in order. A local file's subtitles are found beside it: the
    /// same name with `.srt` or `.vtt`. `~` is the home folder.
    ///
    /// - Throws: ``LocalMediaError/Code-swift.enum/notFound`` for a path
    ///   where nothing is; ``LocalMediaError/Code-swift.enum/noMedia`` for a
    ///   folder without media; what `Playlist` throws for one that does not read.
    public static func resolve(_ arguments: [String]) throws -> [PlayItem] {
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
                throw LocalMediaError(.notFound, "\(argument): no such file or folder")
            }
            if isFolder.boolValue {
                let names = try FileManager.default.contentsOfDirectory(atPath: file.path)
                    .filter { MediaContentType.isMedia($0) && !$0.hasPrefix(".") }
                    .sorted { $0.compare($1, options: [.numeric, .caseInsensitive]) == .orderedAscending }
                guard !names.isEmpty else { throw LocalMediaError(.noMedia, "\(argument): no media files in it") }
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
