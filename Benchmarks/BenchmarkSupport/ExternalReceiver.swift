import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `cast-receiver`, the emulator's own executable, in a process of its own,
/// so that a benchmark measures the sender alone: the receiver's decoding,
/// PSNR and feedback cost nothing in the benchmark's CPU clocks and
/// allocation counts (issue 21).
///
/// `make bench` builds it first (`swift build -c release --product
/// cast-receiver`) and names it in `CAST_RECEIVER`; without it the streaming
/// benchmarks say so and measure nothing.
public final class ExternalReceiver: Sendable {
    /// The TLS port it listens on, on 127.0.0.1.
    public let port: Int
    private let server: SupervisedServer
    private let log: String

    /// The executable: `CAST_RECEIVER`, else the root package's release build.
    public static var executable: String? {
        var candidates = ["../.build/release/cast-receiver", ".build/release/cast-receiver"]
        if let named = ProcessInfo.processInfo.environment["CAST_RECEIVER"] { candidates.insert(named, at: 0) }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts a receiver that behaves as `profile` (its `--profile`: a
    /// speaker is `nest-speaker`), drops `loss` of the datagrams it
    /// receives, delays each by up to `jitterMilliseconds` (its `--loss` and
    /// `--jitter`), and decodes what arrives unless told not to (then it only
    /// reassembles and acknowledges, and its report has no decoded frames).
    public init(
        profile: String = "chromecast-google-tv", loss: Double = 0, jitterMilliseconds: Int = 0, decodes: Bool = true
    ) throws {
        guard let executable = Self.executable else {
            throw BenchmarkSupportError(
                description: "cast-receiver is not built (make bench builds it; or set CAST_RECEIVER)")
        }
        let log = NSTemporaryDirectory() + "cast-receiver-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log"
        self.server = try SupervisedServer(
            "exec '\(executable)' --profile \(profile) --port 0 --loss \(loss) --jitter \(jitterMilliseconds)\(decodes ? "" : " --no-decode")",
            output: log)
        self.log = log
        guard let port = SupervisedServer.first(in: log, within: 20, Self.listeningPort(in:)) else {
            self.server.stop()
            throw BenchmarkSupportError(description: "cast-receiver did not start listening (see \(log))")
        }
        self.port = port
    }

    deinit {
        self.server.stop()
        unlink(self.log)
    }

    /// How many stream reports it has printed so far.
    public var reportCount: Int { self.reports().count }

    /// Waits (at most `timeout`) for report number `number` (from 1), which
    /// the receiver prints when a sender leaves, and returns its line for
    /// the `kind` stream.
    public func report(
        of kind: ReceiverStreamReport.Kind = .video, number: Int, timeout: Duration = .seconds(5)
    ) async throws -> ReceiverStreamReport {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            let reports = self.reports()
            if reports.count >= number {
                guard let report = reports[number - 1].first(where: { $0.kind == kind }) else {
                    throw BenchmarkSupportError(
                        description: "cast-receiver's report \(number) has no \(kind.rawValue) line")
                }
                return report
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BenchmarkSupportError(description: "cast-receiver printed no report \(number) (see \(self.log))")
    }

    /// Every report's stream lines, in order.
    private func reports() -> [[ReceiverStreamReport]] {
        let text = (try? String(contentsOfFile: self.log, encoding: .utf8)) ?? ""
        return text.components(separatedBy: "Remote Display stream report:").dropFirst().map { block in
            block.split(separator: "\n").compactMap { ReceiverStreamReport(line: String($0)) }
        }
    }

    /// The port in "cast-receiver … listening on 127.0.0.1:PORT".
    private static func listeningPort(in text: String) -> Int? {
        guard let range = text.range(of: "listening on 127.0.0.1:") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }
}

/// A stream's line of `cast-receiver`'s stream report.
public struct ReceiverStreamReport: Sendable {
    /// The stream a line is about.
    public enum Kind: String, Sendable {
        /// The video stream.
        case video
        /// The audio stream.
        case audio
    }

    /// The stream this line is about.
    public var kind: Kind
    /// Frames whose packets all arrived.
    public var framesReceived: Int
    /// Frames decoded.
    public var framesDecoded: Int
    /// Frames decoded after their playout time.
    public var framesLate: Int
    /// Capture → decoded latency, milliseconds, when frames were decoded.
    public var latencyP50: Double?
    /// Capture → decoded latency, milliseconds, when frames were decoded.
    public var latencyP99: Double?

    /// Reads "  video: R frames received, D decoded, L late, … latency p50 A ms, p99 B ms"
    /// (or the same for "audio:").
    init?(line: String) {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard let kind = [Kind.video, .audio].first(where: { trimmed.hasPrefix("\($0.rawValue):") }) else {
            return nil
        }
        func number(before label: String) -> Double? {
            guard let range = trimmed.range(of: label) else { return nil }
            let head = trimmed[..<range.lowerBound].trimmingCharacters(in: .whitespaces)
            return Double(head.split(separator: " ").last ?? "")
        }
        func number(after label: String) -> Double? {
            guard let range = trimmed.range(of: label) else { return nil }
            return Double(trimmed[range.upperBound...].prefix { $0.isNumber || $0 == "." })
        }
        guard let received = number(before: " frames received"), let decoded = number(before: " decoded"),
            let late = number(before: " late")
        else { return nil }
        self.kind = kind
        self.framesReceived = Int(received)
        self.framesDecoded = Int(decoded)
        self.framesLate = Int(late)
        self.latencyP50 = number(after: "latency p50 ")
        self.latencyP99 = number(after: ", p99 ")
    }
}
