import ArgumentParser
import CastKit
import CastRemoteDisplay

/// Why a command failed: the SDK's kind of failure, which is the process's exit code, and one sentence.
struct CommandFailure: Error, CustomStringConvertible {
    let category: CastErrorCategory
    /// One sentence naming the cause, for people.
    let description: String
    /// The error's whole technical chain, shown with `--verbose`; `nil` when the sentence is all there is.
    var details: String?

    init(_ category: CastErrorCategory, _ description: String, details: String? = nil) {
        self.category = category
        self.description = description
        self.details = details
    }

    /// The device's connection closed while streaming: it went away.
    static func connectionLost(to host: String, _ summary: String) -> CommandFailure {
        CommandFailure(
            .connectionFailed,
            "lost the connection to \(host) while mirroring (\(summary)): the device went away or was turned off")
    }

    /// Words an error of the Cast modules as its ``CastCategorizedError`` says.
    init(classifying error: any Error) {
        switch error {
        case let failure as CommandFailure:
            self = failure
        case let error as CastRemoteDisplayError where error.code == .noScreen:
            self.init(.launchFailed, "\(error.message); send it sound with `cast audio`")
        case let error as any CastCategorizedError:
            self.init(error.category, error.userMessage, details: "\(error)")
        default:
            self.init(.other, "\(error)")
        }
    }

    /// The exit code of the failure's kind.
    var exitCode: Int32 {
        switch self.category {
        case .other: 1
        case .deviceNotFound: 3
        case .connectionFailed: 4
        case .launchFailed: 5
        case .mediaFailed: 6
        case .offerRejected: 7
        case .timedOut: 8
        case .invalidInput: 9
        case .captureFailed: 10
        }
    }

    /// The failure as `--json` prints it on stdout, so a script reads why
    /// from the same place as a result: `{"error": {"code", "exitCode", "message"}}`.
    var json: JSONValue {
        [
            "error": [
                "code": .string(self.category.rawValue), "exitCode": .integer(Int(self.exitCode)),
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
            throw ExitCode(failure.exitCode)
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
