import ArgumentParser
import CastKit

/// `cast message`: sends JSON on a custom namespace to the running app and prints the replies.
struct MessageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "message",
        abstract: "Send a JSON message on a custom namespace to the running app and print its replies.")

    @Option(help: "The namespace, urn:x-cast:….") var namespace: String
    @Option(name: .customLong("payload"), help: "The message, JSON text.") var payload: String
    @Option(help: "The app to talk to; launched when it is not running (default: the running app).")
    var app: String?
    @Option(help: "Seconds to print replies for.") var wait: Double = 2
    @Option(help: "Stop once this many replies have arrived (or at --wait, if sooner).") var count: Int?
    @OptionGroup var options: DeviceOptions

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count needs at least 1, not \(count)") }
        do {
            _ = try JSONValue(parsing: self.payload)
        } catch {
            throw ValidationError("--payload is not JSON: \(error)")
        }
    }

    func run() async throws {
        try await self.reportingFailures {
            let message = try JSONValue(parsing: self.payload)
            let replies = try await ReceiverLink.with(self.options) { link in
                let channel = try CastChannel(namespace: self.namespace)
                _ = try await link.application(self.app, attaching: [channel])
                let inbound = channel.messages()
                let collector = Task {
                    var replies: [JSONValue] = []
                    for await payload in inbound {
                        guard case .string(let text) = payload else { continue }
                        replies.append((try? JSONValue(parsing: text)) ?? .string(text))
                        if !self.options.json { Output.line(text) }
                        if let count = self.count, replies.count >= count { break }
                    }
                    return replies
                }
                try await channel.sendTextMessage(try message.jsonText())
                let timer = Task {
                    try await Task.sleep(for: .milliseconds(Int(self.wait * 1_000)))
                    collector.cancel()
                }
                let replies = await collector.value
                timer.cancel()
                channel.detach()
                return replies
            }
            if self.options.json { Output.line(try JSONValue.array(replies).jsonText()) }
            Output.progress("\(replies.count) repl\(replies.count == 1 ? "y" : "ies")")
        }
    }
}
