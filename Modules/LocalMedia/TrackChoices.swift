import Foundation

/// Which subtitles to show: a file or URL, a language or a track number
/// among the file's own subtitles, or none.
public enum SubtitleChoice: Sendable, Hashable {
    /// A WebVTT URL, or a local `.srt` / `.vtt` file.
    case source(String)
    /// The first text track in this language (BCP 47 or ISO 639-2: `fr`, `fre`, `pt-BR`).
    case language(String)
    /// The Nth text track, from 1.
    case number(Int)
    /// No subtitles, even those the file marks as default.
    case off

    /// Reads what a user typed: `off`, a number (from 1), a language tag
    /// (`fr`, `fre`, `pt-BR`, unless a file has that name), else a file or URL.
    public init(_ argument: String) {
        if argument == "off" {
            self = .off
        } else if let number = Int(argument), number > 0 {
            self = .number(number)
        } else if argument.wholeMatch(of: /[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?/) != nil,
            !FileManager.default.fileExists(atPath: argument)
        {
            self = .language(argument)
        } else {
            self = .source(argument)
        }
    }
}

/// Which of a file's sound streams to play: a language or a number.
public enum AudioChoice: Sendable, Hashable {
    /// The first audio stream in this language.
    case language(String)
    /// The Nth audio stream, from 1.
    case number(Int)

    /// Reads what a user typed: a number (from 1), else a language.
    public init(_ argument: String) {
        if let number = Int(argument), number > 0 { self = .number(number) } else { self = .language(argument) }
    }
}
