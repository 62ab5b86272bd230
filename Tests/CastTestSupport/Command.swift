import Foundation

/// A program run to its end: its exit status and what it printed (stdout and stderr together).
public struct CommandOutput: Sendable {
    public let status: Int32
    public let text: String

    /// Runs `arguments[0]` with the rest as its arguments and waits for it.
    public static func of(_ arguments: [String]) throws -> CommandOutput {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CommandOutput(status: process.terminationStatus, text: String(decoding: data, as: UTF8.self))
    }

    /// `dbus-send --print-reply` on the bus at `bus` (an independent D-Bus client): what it printed,
    /// the reply or the error.
    public static func dbusSend(_ bus: String, _ arguments: [String]) throws -> String {
        try Self.of(["/usr/bin/dbus-send", "--bus=\(bus)", "--print-reply"] + arguments).text
    }
}
