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

/// Languages as files tag them (ISO 639-2, both its bibliographic and
/// terminology codes) and as Cast's tracks name them (BCP 47, the
/// two-letter code where there is one).
public enum MediaLanguage {
    private static let twoLetter: [String: String] = [
        "eng": "en", "ger": "de", "deu": "de", "fre": "fr", "fra": "fr", "spa": "es", "ita": "it", "por": "pt",
        "dut": "nl", "nld": "nl", "jpn": "ja", "chi": "zh", "zho": "zh", "kor": "ko", "rus": "ru", "pol": "pl",
        "swe": "sv", "dan": "da", "fin": "fi", "nor": "no", "nob": "nb", "cze": "cs", "ces": "cs", "tur": "tr",
        "ara": "ar", "heb": "he", "hin": "hi", "gre": "el", "ell": "el", "hun": "hu", "rum": "ro", "ron": "ro",
        "ukr": "uk", "vie": "vi", "tha": "th", "ind": "id", "cat": "ca", "hrv": "hr", "srp": "sr", "slv": "sl",
    ]

    /// `tag` as BCP 47: a known ISO 639-2 code becomes its two letters; anything else stays.
    public static func bcp47(_ tag: String) -> String {
        Self.twoLetter[tag.lowercased()] ?? tag
    }

    /// Whether a track in `trackLanguage` is one in `wanted` (`fr` matches `fre`, `fra`, `fr-CA`).
    public static func matches(_ trackLanguage: String?, _ wanted: String) -> Bool {
        guard let trackLanguage else { return false }
        let primary = { (tag: String) in
            Self.bcp47(tag.split(separator: "-").first.map(String.init) ?? tag).lowercased()
        }
        return primary(trackLanguage) == primary(wanted)
    }
}
