import ArgumentParser
import CastKit
import Foundation
import NIOConcurrencyHelpers

/// `cast watch`: every receiver, app and media event of one device as JSON
/// lines on stdout (go-chromecast's `watch`), for scripts.
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print every receiver, app and media event of a device as JSON lines until Ctrl-C.",
        discussion: """
            Each line is one JSON object with "event" and "time" (ISO 8601): connected, receiver.status, \
            receiver.volume, receiver.launch, app.started, app.stopped, media.metadata, media.status, \
            media.queue, disconnected. The media of whichever app plays media is joined as it starts.
            """)

    @OptionGroup var options: DeviceOptions

    @Option(help: "Stop after this many events (Ctrl-C stops in any case).")
    var count: Int?

    func validate() throws {
        if let count = self.count, count < 1 { throw ValidationError("--count takes a positive number") }
    }

    func run() async throws {
        try await self.reportingFailures {
            let interrupted = Interruption.install()
            try await ReceiverLink.with(self.options) { link in
                let printer = EventPrinter(limit: self.count)
                printer.print("connected", ["host": .string(link.host), "port": .integer(link.connection.port)])
                let events = DeviceWatch(link: link.link, requestTimeout: self.options.timeoutDuration).events()
                let printing = Task {
                    for await event in events { printer.print(event) }
                    printer.finish()
                }
                while !interrupted.happened, !printer.isFinished {
                    try await Task.sleep(for: .milliseconds(50))
                }
                printing.cancel()
            }
        }
    }
}

/// Prints events as JSON lines, one at a time, and counts them.
private final class EventPrinter: Sendable {
    private let state = NIOLockedValueBox((printed: 0, finished: false))
    private let limit: Int?

    init(limit: Int?) {
        self.limit = limit
    }

    var isFinished: Bool { self.state.withLockedValue { $0.finished } }

    func finish() {
        self.state.withLockedValue { $0.finished = true }
    }

    /// Prints `event` as its line; a media app that cannot be followed is said on stderr.
    func print(_ event: DeviceWatch.Event) {
        if case .mediaUnreachable(let app, let error) = event {
            return Output.progress("cannot follow the media of \(app.displayName): \(error)")
        }
        var fields = event.json.objectValue ?? [:]
        let name = fields.removeValue(forKey: "event")?.stringValue ?? ""
        self.print(name, fields)
    }

    /// Prints `event` with `fields`, unless the limit was reached.
    func print(_ event: String, _ fields: [String: JSONValue]) {
        var line = fields
        line["event"] = .string(event)
        line["time"] = .string(Date().formatted(.iso8601))
        guard let text = try? JSONValue.object(line).jsonText() else { return }
        self.state.withLockedValue { state in
            guard !state.finished else { return }
            FileHandle.standardOutput.write(Data((text + "\n").utf8))
            state.printed += 1
            if let limit = self.limit, state.printed >= limit { state.finished = true }
        }
    }
}
