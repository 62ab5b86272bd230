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

    /// Prints `event` as its line.
    func print(_ event: DeviceWatch.Event) {
        switch event {
        case .receiver(.statusChanged(let status)): self.print("receiver.status", ["status": status.json])
        case .receiver(.volumeChanged(let volume)):
            self.print(
                "receiver.volume",
                [
                    "level": volume.level.map(JSONValue.number) ?? .null,
                    "muted": volume.isMuted.map(JSONValue.bool) ?? .null,
                ])
        case .receiver(.launchStatusChanged(let launch)):
            self.print("receiver.launch", ["status": .string("\(launch)")])
        case .applicationStarted(let app): self.print("app.started", Self.fields(of: app))
        case .applicationStopped(let app): self.print("app.stopped", Self.fields(of: app))
        case .media(let event): self.print(event)
        case .mediaUnreachable(let app, let error):
            Output.progress("cannot follow the media of \(app.displayName): \(error)")
        case .disconnected(let reason): self.print("disconnected", ["reason": .string("\(reason.code)")])
        }
    }

    private func print(_ event: MediaEvent) {
        switch event {
        case .metadataChanged(let media):
            self.print(
                "media.metadata",
                [
                    "contentId": media.map { .string($0.contentID) } ?? .null,
                    "title": media?.metadata?.string(forKey: .title).map(JSONValue.string) ?? .null,
                ])
        case .statusChanged(let status):
            self.print("media.status", ["status": status?.json ?? .null])
        case .queueChanged(let change):
            self.print(
                "media.queue",
                [
                    "changeType": .string(change.changeType),
                    "itemIds": .array(change.itemIDs.map(JSONValue.integer)),
                ])
        }
    }

    private static func fields(of app: ReceiverApplication) -> [String: JSONValue] {
        [
            "appId": .string(app.appID), "displayName": .string(app.displayName),
            "sessionId": app.sessionID.map(JSONValue.string) ?? .null,
        ]
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
