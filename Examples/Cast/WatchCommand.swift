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
                let watcher = AppWatcher(link: link, printer: printer, timeout: self.options.timeoutDuration)
                let receiverEvents = link.receiver.events()
                let states = link.connection.stateUpdates()
                let receiverTask = Task {
                    for await event in receiverEvents { await watcher.receiverEvent(event) }
                }
                let stateTask = Task {
                    for await state in states {
                        if case .disconnected(let reason) = state {
                            printer.print("disconnected", ["reason": .string("\(reason.code)")])
                            printer.finish()
                        }
                    }
                }
                await watcher.receiverEvent(.statusChanged(try await link.receiver.requestStatus()))
                while !interrupted.happened, !printer.isFinished {
                    try await Task.sleep(for: .milliseconds(50))
                }
                receiverTask.cancel()
                stateTask.cancel()
                await watcher.stop()
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

/// Follows the apps in the receiver's statuses: prints them starting and
/// stopping, and joins the media of the one that plays media.
private actor AppWatcher {
    private let link: ReceiverLink
    private let printer: EventPrinter
    private let timeout: Duration
    private var running: [String: ReceiverApplication] = [:]
    private var media: (sessionID: String, client: RemoteMediaClient, task: Task<Void, Never>)?

    init(link: ReceiverLink, printer: EventPrinter, timeout: Duration) {
        self.link = link
        self.printer = printer
        self.timeout = timeout
    }

    func receiverEvent(_ event: ReceiverEvent) async {
        switch event {
        case .statusChanged(let status):
            self.printer.print("receiver.status", ["status": status.json])
            await self.follow(status)
        case .volumeChanged(let volume):
            self.printer.print(
                "receiver.volume",
                [
                    "level": volume.level.map(JSONValue.number) ?? .null,
                    "muted": volume.isMuted.map(JSONValue.bool) ?? .null,
                ])
        case .launchStatusChanged(let launch):
            self.printer.print("receiver.launch", ["status": .string("\(launch)")])
        }
    }

    func stop() {
        self.media?.task.cancel()
        self.media?.client.detach()
        self.media = nil
    }

    /// Prints apps that started or stopped, and joins (or leaves) the media app.
    private func follow(_ status: ReceiverStatus) async {
        let now = Dictionary(
            status.applications.filter { !$0.isIdleScreen }.compactMap { app in app.sessionID.map { ($0, app) } },
            uniquingKeysWith: { first, _ in first })
        for (sessionID, app) in now where self.running[sessionID] == nil {
            self.printer.print("app.started", Self.fields(of: app, sessionID: sessionID))
        }
        for (sessionID, app) in self.running where now[sessionID] == nil {
            self.printer.print("app.stopped", Self.fields(of: app, sessionID: sessionID))
        }
        self.running = now
        if let media = self.media, now[media.sessionID] == nil { self.stop() }
        guard self.media == nil,
            let (sessionID, app) = now.first(where: { $0.value.supports(namespace: CastNamespace.media) })
        else { return }
        let client = RemoteMediaClient(requestTimeout: self.timeout)
        let events = client.events()
        let printer = self.printer
        let task = Task {
            for await event in events {
                switch event {
                case .metadataChanged(let media):
                    printer.print(
                        "media.metadata",
                        [
                            "contentId": media.map { .string($0.contentID) } ?? .null,
                            "title": media?.metadata?.string(forKey: .title).map(JSONValue.string) ?? .null,
                        ])
                case .statusChanged(let status):
                    printer.print("media.status", ["status": status?.json ?? .null])
                case .queueChanged(let change):
                    printer.print(
                        "media.queue",
                        [
                            "changeType": .string(change.changeType),
                            "itemIds": .array(change.itemIDs.map(JSONValue.integer)),
                        ])
                }
            }
        }
        self.media = (sessionID, client, task)
        do {
            try await self.link.join(app, attaching: [client])
        } catch {
            Output.progress("cannot follow the media of \(app.displayName): \(error)")
            self.stop()
        }
    }

    private static func fields(of app: ReceiverApplication, sessionID: String) -> [String: JSONValue] {
        ["appId": .string(app.appID), "displayName": .string(app.displayName), "sessionId": .string(sessionID)]
    }
}
