public import Foundation

/// What ffprobe and ffmpeg read: a local file, or a video on the web with
/// the headers its site asks for (a Referer, a User-Agent, a Cookie — what
/// yt-dlp's `http_headers` lists), which ffmpeg sends with each request and
/// which a TV fetching the URL itself would not.
public struct MediaInput: Sendable, Hashable {
    /// A file's path, or an http(s) URL.
    public let location: String
    /// Headers sent with each request for a URL; none for a file.
    public let headers: [String: String]
    /// Its name, for messages and for what is served ("film.mkv").
    public let name: String
    /// Whether it is on the web.
    public let isRemote: Bool

    /// The local file at `url`.
    public static func file(_ url: URL) -> MediaInput {
        let path = url.standardizedFileURL.path
        return MediaInput(location: path, headers: [:], name: url.lastPathComponent, isRemote: false)
    }

    /// The http(s) URL `url`, fetched with `headers`; a header whose name
    /// or value holds a line break is left out (it would end the request's
    /// header block).
    public static func web(_ url: URL, headers: [String: String] = [:]) -> MediaInput {
        let safe = headers.filter { name, value in
            // By scalar: "\r\n" is one Character, equal to neither "\r" nor "\n".
            !name.isEmpty && !name.contains(":")
                && !(name + value).unicodeScalars.contains { $0 == "\r" || $0 == "\n" || $0 == "\0" }
        }
        let name = url.lastPathComponent.isEmpty ? (url.host ?? "video") : url.lastPathComponent
        return MediaInput(location: url.absoluteString, headers: safe, name: name, isRemote: true)
    }

    /// ffmpeg's and ffprobe's options before the input: for a URL its
    /// headers, and reconnection when the link drops mid-film.
    public var options: [String] {
        guard self.isRemote else { return [] }
        var options = ["-reconnect", "1", "-reconnect_on_network_error", "1", "-reconnect_delay_max", "5"]
        if !self.headers.isEmpty {
            let block = self.headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)\r\n" }.joined()
            options += ["-headers", block]
        }
        return options
    }
}
