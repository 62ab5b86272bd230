import CastChannels
public import Foundation

/// The settings of `cast speakers` in a small text file, by default
/// `$XDG_CONFIG_HOME/cast/speakers.conf`: which devices, the groups, the
/// grace period, bitrate and delay. Each line is a long option of the
/// command and its value, as on the command line; `#` starts a comment:
///
/// ```
/// # Only these two get a sink of their own.
/// only = Kitchen
/// only = Living Room TV
/// group = Downstairs=Kitchen,Living Room TV
/// grace = 30
/// bitrate = 160
/// delay = 300
/// ```
///
/// `only` and `group` may repeat; the others are given once. `grace` is in
/// seconds, `bitrate` in kbit/s and `delay` in milliseconds, as the
/// command's options; `audio-server` names the sound server.
public struct CastSpeakersFile: Sendable, Hashable {
    /// The devices that get a sink of their own, by name or id; empty: every one with sound.
    public var only: [String] = []
    /// Groups of devices, each a sink of its own.
    public var groups: [CastSpeakersGroup] = []
    /// The sound server, if the file names one.
    public var soundServer: String?
    /// The grace period, if the file gives one.
    public var gracePeriod: Duration?
    /// The Opus bitrate in bit/s, if the file gives one.
    public var bitrate: Int?
    /// The target delay, if the file gives one.
    public var targetDelay: Duration?

    /// The most a file may hold: it is a few lines a person writes.
    public static let maximumSize = 64 * 1_024

    /// An empty file: nothing set.
    public init() {}

    /// Reads `text`, a whole file.
    ///
    /// - Throws: ``SpeakersError/Code-swift.enum/invalidConfiguration`` naming
    ///   the first line that is not an option and its value, a value out of
    ///   range, an option given twice, or a file over ``maximumSize``.
    public init(parsing text: String) throws(SpeakersError) {
        guard text.utf8.count <= Self.maximumSize else {
            throw SpeakersError(.invalidConfiguration, "the file is over \(Self.maximumSize) bytes")
        }
        var seen: Set<String> = []
        for (offset, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.prefix { $0 != "#" }.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty else { continue }
            let number = offset + 1
            guard let equals = line.firstIndex(of: "=") else {
                throw SpeakersError(.invalidConfiguration, "line \(number): \(line) is not OPTION = VALUE")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard !value.isEmpty else {
                throw SpeakersError(.invalidConfiguration, "line \(number): \(key) has no value")
            }
            if key != "only", key != "group" {
                guard seen.insert(key).inserted else {
                    throw SpeakersError(.invalidConfiguration, "line \(number): \(key) is given twice")
                }
            }
            try self.set(key, to: value, line: number)
        }
    }

    private mutating func set(_ key: String, to value: String, line: Int) throws(SpeakersError) {
        switch key {
        case "only":
            self.only.append(value)
        case "group":
            self.groups.append(try Self.group(value, line: line))
        case "audio-server":
            self.soundServer = value
        case "grace":
            guard let seconds = Double(value), (1...3_600).contains(seconds) else {
                throw SpeakersError(.invalidConfiguration, "line \(line): grace must be 1…3600 seconds, not \(value)")
            }
            self.gracePeriod = .milliseconds(Int((seconds * 1_000).rounded()))
        case "bitrate":
            guard let kilobits = Int(value), (6...510).contains(kilobits) else {
                throw SpeakersError(.invalidConfiguration, "line \(line): bitrate must be 6…510 kbit/s, not \(value)")
            }
            self.bitrate = kilobits * 1_000
        case "delay":
            guard let milliseconds = Int(value), (1...5_000).contains(milliseconds) else {
                throw SpeakersError(.invalidConfiguration, "line \(line): delay must be 1…5000 ms, not \(value)")
            }
            self.targetDelay = .milliseconds(milliseconds)
        default:
            throw SpeakersError(
                .invalidConfiguration,
                "line \(line): \(key) is not an option here (only, group, audio-server, grace, bitrate, delay)")
        }
    }

    /// `NAME=DEVICE,DEVICE,…`, as `cast speakers --group` takes it.
    public static func group(_ text: String, line: Int? = nil) throws(SpeakersError) -> CastSpeakersGroup {
        let parts = text.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        let members =
            parts.count == 2
            ? parts[1].split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            } : []
        guard parts.count == 2, !parts[0].isEmpty, !members.isEmpty, !members.contains(where: \.isEmpty) else {
            let place = line.map { "line \($0): " } ?? ""
            throw SpeakersError(.invalidConfiguration, "\(place)a group is NAME=DEVICE,DEVICE,…, not \(text)")
        }
        return CastSpeakersGroup(name: parts[0], members: members)
    }

    /// Reads the file at `url`; an empty file's settings when there is none.
    ///
    /// - Throws: ``SpeakersError/Code-swift.enum/invalidConfiguration`` for
    ///   a file that cannot be read or parsed, naming it.
    public init(contentsOf url: URL) throws(SpeakersError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch CocoaError.fileReadNoSuchFile {
            self.init()
            return
        } catch {
            throw SpeakersError(.invalidConfiguration, "cannot read \(url.path): \(error.localizedDescription)")
        }
        guard data.count <= Self.maximumSize, let text = String(data: data, encoding: .utf8) else {
            throw SpeakersError(.invalidConfiguration, "\(url.path) is not a text file of at most 64 KiB")
        }
        do {
            try self.init(parsing: text)
        } catch {
            throw SpeakersError(.invalidConfiguration, "\(url.path), \(error.message)")
        }
    }

    /// `$XDG_CONFIG_HOME/cast/speakers.conf`, or `~/.config/cast/speakers.conf`.
    public static var defaultLocation: URL {
        XDGDirectory.configuration.file("speakers.conf", application: "cast")
    }
}
