public import CastCommon
public import Foundation

/// A playlist file read into its entries, in order: M3U / M3U8 (extended
/// M3U's `#EXTINF:seconds,title` lines name the next entry) or PLS (the INI
/// form: `FileN=`, `TitleN=`, `LengthN=`).
///
/// Paths are relative to the playlist's folder unless absolute; `file://`
/// URLs are paths; other URLs (`http://…`) stay URLs. Text is UTF-8 (or
/// UTF-16 with a byte-order mark); a file that is not valid UTF-8 — older
/// `.m3u` and `.pls` files — is read as Windows-1252.
public struct Playlist: Sendable, Hashable {
    /// One entry: where it is and what the playlist says of it.
    public struct Entry: Sendable, Hashable {
        /// Where an entry's media is.
        public enum Location: Sendable, Hashable {
            /// A local file.
            case file(URL)
            /// A URL the receiver fetches itself.
            case url(String)
        }

        /// Where the media is.
        public var location: Location
        /// The title the playlist gives, if any.
        public var title: String?
        /// The duration the playlist gives, seconds; `nil` when unknown (M3U's -1).
        public var duration: Double?

        /// Creates an entry.
        public init(location: Location, title: String? = nil, duration: Double? = nil) {
            self.location = location
            self.title = title
            self.duration = duration
        }
    }

    /// The entries, in playlist order.
    public var entries: [Entry]

    /// The largest playlist read: 4 MiB.
    public static let maximumBytes = 4 << 20
    /// The most entries a playlist may have: 10 000.
    public static let maximumEntries = 10_000

    /// Whether `file`'s extension names a playlist this type reads.
    public static func isPlaylist(_ file: URL) -> Bool {
        ["m3u", "m3u8", "pls"].contains(file.pathExtension.lowercased())
    }

    /// Reads the playlist at `file`.
    ///
    /// - Throws: ``PlaylistError``: unreadable, too large, not a playlist, or empty.
    public init(contentsOf file: URL) throws(PlaylistError) {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw .unreadable(file.path, String(describing: error))
        }
        try self.init(
            bytes: [UInt8](data), kind: file.pathExtension.lowercased(), folder: file.deletingLastPathComponent())
    }

    /// Reads a playlist of `kind` (`m3u`, `m3u8` or `pls`) whose relative
    /// paths are relative to `folder`.
    ///
    /// - Throws: ``PlaylistError``.
    public init(bytes: [UInt8], kind: String, folder: URL) throws(PlaylistError) {
        guard bytes.count <= Self.maximumBytes else { throw .tooLarge(bytes.count) }
        let text = LocalText.decode(bytes)
        let lines = LocalText.lines(of: text).map { String($0.trimmingWhitespace()) }
        switch kind {
        case "m3u", "m3u8": self.entries = Self.m3u(lines, folder: folder)
        case "pls": self.entries = try Self.pls(lines, folder: folder)
        default: throw .unknownKind(kind)
        }
        guard !self.entries.isEmpty else { throw .empty }
        guard self.entries.count <= Self.maximumEntries else { throw .tooManyEntries(self.entries.count) }
    }

    private static func m3u(_ lines: [String], folder: URL) -> [Entry] {
        var entries: [Entry] = []
        var pending: (title: String?, duration: Double?)?
        for line in lines where !line.isEmpty {
            if line.hasPrefix("#EXTINF:") {
                // #EXTINF:<seconds>[ attributes],<title>
                let body = line.dropFirst("#EXTINF:".count)
                let comma = body.firstIndex(of: ",")
                let seconds = (comma.map { body[..<$0] } ?? body).split(separator: " ").first.flatMap { Double($0) }
                let title = comma.map { String(body[body.index(after: $0)...].trimmingWhitespace()) }
                pending = (title?.isEmpty == false ? title : nil, seconds.flatMap { $0 >= 0 ? $0 : nil })
                continue
            }
            if line.hasPrefix("#") { continue }
            guard let location = Self.location(line, folder: folder) else { continue }
            entries.append(Entry(location: location, title: pending?.title, duration: pending?.duration))
            pending = nil
        }
        return entries
    }

    private static func pls(_ lines: [String], folder: URL) throws(PlaylistError) -> [Entry] {
        guard lines.contains(where: { $0.lowercased() == "[playlist]" }) else { throw .notAPlaylist }
        var files: [Int: String] = [:]
        var titles: [Int: String] = [:]
        var lengths: [Int: Double] = [:]
        for line in lines {
            guard let equals = line.firstIndex(of: "=") else { continue }
            // FileN=, TitleN=, LengthN=: a name, then the entry's number.
            let key = line[..<equals].lowercased()
            let name = key.prefix { $0.isLetter }
            guard let index = Int(key.dropFirst(name.count)), index >= 0 else { continue }
            let value = String(line[line.index(after: equals)...].trimmingWhitespace())
            switch name {
            case "file": files[index] = value
            case "title": titles[index] = value
            case "length": lengths[index] = Double(value).flatMap { $0 >= 0 ? $0 : nil }
            default: continue
            }
        }
        return files.keys.sorted().compactMap { index in
            Self.location(files[index]!, folder: folder).map {
                Entry(location: $0, title: titles[index].flatMap { $0.isEmpty ? nil : $0 }, duration: lengths[index])
            }
        }
    }

    /// A URL, a `file://` URL, or a path (absolute, or relative to `folder`).
    private static func location(_ text: String, folder: URL) -> Entry.Location? {
        if let scheme = text.firstRange(of: "://").map({ text[..<$0.lowerBound].lowercased() }),
            !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) })
        {
            guard scheme == "file" else { return .url(text) }
            return URL(string: text).map { .file($0.standardizedFileURL) }
        }
        // Playlists written on Windows separate folders with backslashes.
        let path = text.contains("/") ? text : text.replacingOccurrences(of: "\\", with: "/")
        let url = path.hasPrefix("/") ? URL(fileURLWithPath: path) : folder.appendingPathComponent(path)
        return .file(url.standardizedFileURL)
    }
}

/// Why a playlist could not be read.
public enum PlaylistError: Error, Sendable, Hashable {
    /// The file could not be read (its path, the reason).
    case unreadable(String, String)
    /// Larger than ``Playlist/maximumBytes`` (its size).
    case tooLarge(Int)
    /// More than ``Playlist/maximumEntries`` entries (how many).
    case tooManyEntries(Int)
    /// An extension other than `m3u`, `m3u8` or `pls`.
    case unknownKind(String)
    /// A `.pls` file without its `[playlist]` section.
    case notAPlaylist
    /// No entry in it.
    case empty
}

extension PlaylistError: CastCategorizedError {
    /// `CastErrorCategory.invalidInput`: the playlist cannot be used.
    public var category: CastErrorCategory { .invalidInput }

    /// The ``description``.
    public var userMessage: String { self.description }

    /// What is wrong with the playlist, for people.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "playlist \(path) cannot be read: \(reason)"
        case .tooLarge(let size): "a playlist of \(size) bytes is larger than \(Playlist.maximumBytes)"
        case .tooManyEntries(let count):
            "a playlist of \(count) entries holds more than \(Playlist.maximumEntries)"
        case .unknownKind(let kind): "a playlist is .m3u, .m3u8 or .pls, not .\(kind)"
        case .notAPlaylist: "the .pls file has no [playlist] section"
        case .empty: "the playlist holds no entry"
        }
    }
}
