import ArgumentParser
import CastCapture
import CastKit
import CastMediaServer
import CastRemoteDisplay

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
    let description: String

    init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    /// Classifies an error thrown by the Cast modules.
    init(classifying error: any Error) {
        switch error {
        case let failure as CommandFailure:
            self = failure
        case let error as CastTransportError:
            self.init(error.code == .connectTimedOut ? .timedOut : .connectionFailed, "\(error)")
        case let error as CastChannelError:
            switch error.code {
            case .launchFailed: self.init(.launchFailed, "\(error)")
            case .timedOut: self.init(.timedOut, "\(error)")
            case .disconnected, .notConnected: self.init(.connectionFailed, "\(error)")
            default: self.init(.other, "\(error)")
            }
        case let error as CastMediaError:
            self.init(error.code == .timedOut ? .timedOut : .mediaFailed, "\(error)")
        case let error as CastRemoteDisplayError:
            switch error.code {
            case .offerRejected, .noAcceptableStream: self.init(.offerRejected, "\(error)")
            case .answerTimedOut: self.init(.timedOut, "\(error)")
            case .invalidFile: self.init(.badInput, "\(error)")
            case .launchFailed: self.init(.launchFailed, "\(error)")
            default: self.init(.other, "\(error)")
            }
        case let error as CaptureError:
            self.init(error.code == .invalidConfiguration ? .badInput : .captureFailed, "\(error)")
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

extension AsyncParsableCommand {
    /// Runs `body`; a failure is printed to stderr and becomes the process exit code.
    func reportingFailures(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let exit as ExitCode {
            throw exit
        } catch let usage as ValidationError {
            throw usage  // ArgumentParser prints it with the usage, exit code 64
        } catch {
            let failure = CommandFailure(classifying: error)
            Output.progress("error: \(failure.description)")
            throw ExitCode(failure.kind.rawValue)
        }
    }
}
