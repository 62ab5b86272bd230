import ArgumentParser
import CastCapture
import CastKit
import CastLocalMedia
import CastMediaServer
import CastRemoteDisplay
import CastSpeakers

/// Why a command failed, with the process exit code each reason maps to.
struct CommandFailure: Error, CustomStringConvertible {
    /// The reasons, each with its exit code.
    enum Kind: Int32 {
        case other = 1
        case deviceNotFound = 3
        case connectionFailed = 4
        case launchFailed = 5
        case mediaFailed = 6
        case offerRejected = 7
        case timedOut = 8
        case badInput = 9
        case captureFailed = 10
    }

    let kind: Kind
    /// One sentence naming the cause, for people.
    let description: String
    /// The error's whole technical chain, shown with `--verbose`; `nil` when the sentence is all there is.
    var details: String?

    init(_ kind: Kind, _ description: String, details: String? = nil) {
        self.kind = kind
        self.description = description
        self.details = details
    }

    /// The device's connection closed while streaming: it went away.
    static func connectionLost(to host: String, _ summary: String) -> CommandFailure {
        CommandFailure(
            .connectionFailed,
            "lost the connection to \(host) while mirroring (\(summary)): the device went away or was turned off")
    }

    /// Classifies an error thrown by the Cast modules.
    init(classifying error: any Error) {
        switch error {
        case let failure as CommandFailure:
            self = failure
        case let error as DiscoveryError:
            let named = [.malformedAddress, .deviceNotFound].contains(error.code)
            self.init(named ? .deviceNotFound : .other, error.message)
        case let error as CastTransportError:
            // "cannot connect to 127.0.0.1:8009: connection refused", not NIO's chain of attempts.
            self.init(
                error.code == .connectTimedOut ? .timedOut : .connectionFailed, error.summary,
                details: "\(error)")
        case let error as CastChannelError:
            switch error.code {
            case .launchFailed: self.init(.launchFailed, "\(error)")
            case .timedOut: self.init(.timedOut, "\(error)")
            case .disconnected, .notConnected: self.init(.connectionFailed, "\(error)")
            default: self.init(.other, "\(error)")
            }
        case let error as LocalMediaError:
            // Playback that failed on the device, not what the user named.
            let played = [.unreachable, .undecodable, .stalled].contains(error.code)
            self.init(played ? .mediaFailed : .badInput, error.message)
        case let error as CastMediaError:
            self.init(error.code == .timedOut ? .timedOut : .mediaFailed, "\(error)")
        case let error as CastRemoteDisplayError:
            switch error.code {
            case .offerRejected, .noAcceptableStream: self.init(.offerRejected, "\(error)")
            case .answerTimedOut: self.init(.timedOut, "\(error)")
            case .invalidFile: self.init(.badInput, "\(error)")
            case .launchFailed: self.init(.launchFailed, "\(error)")
            case .noScreen: self.init(.launchFailed, "\(error.message); send it sound with `cast audio`")
            case .noSoundOutput: self.init(.launchFailed, error.message)
            default: self.init(.other, "\(error)")
            }
        case let error as CaptureError where error.code == .unreadableSoundFile:
            self.init(.badInput, error.message)
        case let error as CaptureError:
            self.init(error.code == .invalidConfiguration ? .badInput : .captureFailed, "\(error)")
        case let error as SpeakersError:
            switch error.code {
            case .soundServerUnavailable: self.init(.captureFailed, "\(error)")
            case .invalidConfiguration: self.init(.badInput, "\(error)")
            default: self.init(.other, "\(error)")
            }
        case let error as MediaServerError:
            self.init([.unreadableFile, .probeFailed].contains(error.code) ? .badInput : .other, "\(error)")
        case let error as SubtitleError:
            self.init(.badInput, "subtitles: \(error)")
        case let error as PlaylistError:
            self.init(.badInput, "playlist: \(error)")
        default:
            self.init(.other, "\(error)")
        }
    }
}

extension CommandFailure.Kind {
    /// The kind's stable name, for `--json`.
    var name: String {
        switch self {
        case .other: "other"
        case .deviceNotFound: "deviceNotFound"
        case .connectionFailed: "connectionFailed"
        case .launchFailed: "launchFailed"
        case .mediaFailed: "mediaFailed"
        case .offerRejected: "offerRejected"
        case .timedOut: "timedOut"
        case .badInput: "badInput"
        case .captureFailed: "captureFailed"
        }
    }
}

extension CommandFailure {
    /// The failure as `--json` prints it on stdout, so a script reads why
    /// from the same place as a result: `{"error": {"code", "exitCode", "message"}}`.
    var json: JSONValue {
        [
            "error": [
                "code": .string(self.kind.name), "exitCode": .integer(Int(self.kind.rawValue)),
                "message": .string(self.description),
            ]
        ]
    }
}

extension AsyncParsableCommand {
    /// Runs `body`; a failure is printed to stderr — one sentence, and the
    /// technical chain with `--verbose` — as a JSON object on stdout too with
    /// `--json`, and becomes the process exit code.
    func reportingFailures(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let exit as ExitCode {
            throw exit
        } catch let usage as ValidationError {
            throw usage  // ArgumentParser prints it with the usage, exit code 64
        } catch {
            let failure = CommandFailure(classifying: error)
            let (json, verbose) = self.reportingFlags
            Output.progress("error: \(failure.description)")
            if verbose, let details = failure.details, details != failure.description {
                Output.progress("  (\(details))")
            }
            if json, let text = try? failure.json.jsonText() { Output.line(text) }
            throw ExitCode(failure.kind.rawValue)
        }
    }

    /// Whether the command was given `--json` and `--verbose`: its
    /// ``DeviceOptions``' flags, or its own flags of those names.
    private var reportingFlags: (json: Bool, verbose: Bool) {
        var flags = (json: false, verbose: false)
        for child in Mirror(reflecting: self).children {
            switch (child.label, child.value) {
            case (_, let group as OptionGroup<DeviceOptions>):
                flags.json = flags.json || group.wrappedValue.json
                flags.verbose = flags.verbose || group.wrappedValue.verbose
            case ("_json", let flag as Flag<Bool>): flags.json = flags.json || flag.wrappedValue
            case ("_verbose", let flag as Flag<Bool>): flags.verbose = flags.verbose || flag.wrappedValue
            default: break
            }
        }
        return flags
    }
}
