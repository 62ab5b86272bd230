public import CastCommon

/// Subtitles as the Default Media Receiver takes them: WebVTT
/// (https://www.w3.org/TR/webvtt1/). ``init(srt:)`` converts SubRip, the
/// format most local subtitle files are in; ``init(vtt:)`` takes WebVTT as
/// it is, cleaned of a byte-order mark and CR line ends.
public struct WebVTT: Sendable, Hashable {
    /// The file's text, `WEBVTT` header first, LF line ends.
    public let text: String
    /// How many cues it has.
    public let cueCount: Int

    /// The largest subtitle file read: 16 MiB (a film's subtitles are ~100 KiB).
    public static let maximumBytes = 16 << 20

    /// Converts SubRip (`.srt`): numbered blocks of a timing line and text,
    /// separated by blank lines. What real files contain is accepted — a
    /// byte-order mark, CRLF or CR line ends, UTF-8, UTF-16 or Windows-1252
    /// text, `.` or `,` before the milliseconds, one to three millisecond
    /// digits, hours left out, missing or wrong cue numbers, position
    /// coordinates after the times, several blank lines — and blocks that
    /// make no sense are skipped. `<i>`, `<b>` and `<u>` stay (WebVTT has
    /// them), `<font color>` in a WebVTT default colour becomes its class,
    /// other tags and ASS overrides such as `{\an8}` go; other `<`, `&` and
    /// `>` (so `-->` too) in the text are escaped (WebVTT §4.2.2).
    ///
    /// - Throws: ``SubtitleError/tooLarge(_:)`` past ``maximumBytes``,
    ///   ``SubtitleError/noCues`` when not one cue could be read.
    public init(srt bytes: [UInt8]) throws(SubtitleError) {
        guard bytes.count <= Self.maximumBytes else { throw .tooLarge(bytes.count) }
        let lines = LocalText.lines(of: LocalText.decode(bytes))
        var output = "WEBVTT\n"
        var cues = 0
        var index = 0
        while index < lines.count {
            // A block: up to the next blank line.
            while index < lines.count, lines[index].allSatisfy(\.isWhitespace) { index += 1 }
            var block: [Substring] = []
            while index < lines.count, !lines[index].allSatisfy(\.isWhitespace) {
                block.append(lines[index])
                index += 1
            }
            guard let timingIndex = block.prefix(2).firstIndex(where: { $0.contains("-->") }),
                let timing = Self.timing(block[timingIndex])
            else { continue }
            // A <font> opened on one line may close on the next; what stays
            // open WebVTT closes at the cue's end (§6.4).
            var fonts: [Bool] = []
            let text = block[(timingIndex + 1)...].map { Self.cueText($0, fonts: &fonts) }.filter { !$0.isEmpty }
            guard !text.isEmpty else { continue }
            cues += 1
            output += "\n\(cues)\n\(timing)\n" + text.joined(separator: "\n") + "\n"
        }
        guard cues > 0 else { throw .noCues }
        self.text = output
        self.cueCount = cues
    }

    /// Takes WebVTT as it is: the header checked, a byte-order mark and CR
    /// line ends removed.
    ///
    /// - Throws: ``SubtitleError/tooLarge(_:)``; ``SubtitleError/notWebVTT``
    ///   without the `WEBVTT` header.
    public init(vtt bytes: [UInt8]) throws(SubtitleError) {
        guard bytes.count <= Self.maximumBytes else { throw .tooLarge(bytes.count) }
        let lines = LocalText.lines(of: LocalText.decode(bytes))
        guard let first = lines.first, first.hasPrefix("WEBVTT"),
            first.count == 6 || first.dropFirst(6).first.map({ $0 == " " || $0 == "\t" }) == true
        else { throw .notWebVTT }
        let kept = lines[..<(lines.lastIndex { !$0.allSatisfy(\.isWhitespace) }.map { $0 + 1 } ?? lines.endIndex)]
        self.text = kept.joined(separator: "\n") + "\n"
        self.cueCount = kept.filter { $0.contains("-->") }.count
    }

    // MARK: Cues

    /// `start --> end` in WebVTT's form, or `nil` when either time does not read.
    private static func timing(_ line: Substring) -> String? {
        let parts = line.split(separator: "-->", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2,
            let start = Self.timestamp(parts[0].trimmingWhitespace()),
            // Anything after the end time (SRT's X1:… Y2:… coordinates) is dropped.
            let endText = parts[1].trimmingWhitespace().split(whereSeparator: \.isWhitespace).first,
            let end = Self.timestamp(endText), end >= start
        else { return nil }
        return Self.format(start) + " --> " + Self.format(end)
    }

    /// Milliseconds of `[h…:]mm:ss[,.]f…`; `nil` when it does not read.
    static func timestamp(_ text: Substring) -> Int? {
        let clock = text.split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 2 || clock.count == 3 else { return nil }
        let secondsPart = clock[clock.count - 1].split(
            omittingEmptySubsequences: false, whereSeparator: { $0 == "," || $0 == "." })
        guard secondsPart.count <= 2, let seconds = Self.number(secondsPart[0], digits: 1...2), seconds < 60,
            let minutes = Self.number(clock[clock.count - 2], digits: 1...2), minutes < 60
        else { return nil }
        let hours = clock.count == 3 ? Self.number(clock[0], digits: 1...3) : 0
        guard let hours else { return nil }
        var milliseconds = 0
        if secondsPart.count == 2 {
            // ",5" is 500 ms and ",05" 50 ms: a fraction of a second; digits past the third are dropped.
            let fraction = secondsPart[1].prefix(3)
            guard let value = Self.number(fraction, digits: 1...3) else { return nil }
            milliseconds = value * [100, 10, 1][fraction.count - 1]
        }
        return ((hours * 60 + minutes) * 60 + seconds) * 1_000 + milliseconds
    }

    private static func number(_ text: Substring, digits: ClosedRange<Int>) -> Int? {
        guard digits.contains(text.count), text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    /// `hh:mm:ss.mmm`.
    private static func format(_ milliseconds: Int) -> String {
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let seconds = milliseconds / 1_000
        return padded(seconds / 3_600, 2) + ":" + padded(seconds / 60 % 60, 2) + ":" + padded(seconds % 60, 2) + "."
            + padded(milliseconds % 1_000, 3)
    }

    /// One line of cue text in WebVTT: `<i>`, `<b>`, `<u>` kept; `<font
    /// color="…">` in one of WebVTT's default colours (§5: white, lime,
    /// cyan, red, yellow, magenta, blue, black) becomes that class (`<c.red>`),
    /// other tags and `{\…}` overrides are dropped; `&`, `<`, `>` escaped.
    private static func cueText(_ line: Substring, fonts: inout [Bool]) -> String {
        var output = ""
        var rest = line[...]
        while let character = rest.first {
            if character == "{", rest.dropFirst().first == "\\", let close = rest.firstIndex(of: "}") {
                rest = rest[rest.index(after: close)...]
                continue
            }
            // A tag starts with a letter (or / and a letter): "a < b" is text.
            if character == "<", let close = rest.firstIndex(of: ">"),
                rest.dropFirst().drop(while: { $0 == "/" }).first?.isLetter == true
            {
                let tag = rest[rest.index(after: rest.startIndex)..<close].lowercased()
                let name = tag.hasPrefix("/") ? String(tag.dropFirst()) : tag
                if ["i", "b", "u"].contains(name) {
                    output += "<\(tag)>"
                } else if tag.hasPrefix("font") {
                    let colour = Self.defaultColours.first { tag.contains("\"\($0)\"") || tag.contains("=\($0)") }
                    if let colour { output += "<c.\(colour)>" }
                    fonts.append(colour != nil)
                } else if tag == "/font", let opened = fonts.popLast(), opened {
                    output += "</c>"
                }
                rest = rest[rest.index(after: close)...]
                continue
            }
            switch character {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            default: output.append(character)
            }
            rest = rest.dropFirst()
        }
        return String(output.trimmingWhitespace())
    }

    /// WebVTT's default text colour classes (§5, "Default classes").
    private static let defaultColours = ["white", "lime", "cyan", "red", "yellow", "magenta", "blue", "black"]
}

/// Why subtitles could not be read.
public enum SubtitleError: Error, Sendable, Hashable {
    /// The file is larger than ``WebVTT/maximumBytes`` (its size).
    case tooLarge(Int)
    /// Not one cue could be read: not SubRip, or empty.
    case noCues
    /// A `.vtt` file without the `WEBVTT` header.
    case notWebVTT
}

extension SubtitleError: CastCategorizedError {
    /// `CastErrorCategory.invalidInput`: the subtitles cannot be used.
    public var category: CastErrorCategory { .invalidInput }

    /// The ``description``.
    public var userMessage: String { self.description }

    /// What is wrong with the subtitles, for people.
    public var description: String {
        switch self {
        case .tooLarge(let size): "subtitles of \(size) bytes are larger than \(WebVTT.maximumBytes)"
        case .noCues: "the subtitles hold no cue that can be read (not SubRip or WebVTT, or empty)"
        case .notWebVTT: "the .vtt subtitles do not start with WEBVTT"
        }
    }
}
