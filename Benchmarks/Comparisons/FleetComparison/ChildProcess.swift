import Foundation

/// A child process driven by lines: commands on its standard input, one
/// JSON object per line on its standard output, read on a thread of its
/// own so that waiting for the child never holds a cooperative thread
/// (which would delay the very arrivals the benchmark times).
final class ChildProcess: @unchecked Sendable {
    // @unchecked Sendable: Process, Pipe and the stream's iterator are not
    // Sendable. Safe because `lines` (the only mutable state) is touched by
    // `readObject()` alone, which the benchmark's top-level code calls from one
    // task at a time, awaiting each step before the next (main.swift never
    // hands a ChildProcess to a second task); `send` writes to the pipe's
    // handle, whose writes the kernel serializes; the reader thread owns the
    // output pipe and reaches the iterator only through the stream's
    // continuation, which is Sendable.
    private let process = Process()
    private let input = Pipe()
    private var lines: AsyncStream<Data>.Iterator

    init(_ arguments: [String]) throws {
        let output = Pipe()
        self.process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        self.process.arguments = arguments
        self.process.standardInput = self.input
        self.process.standardOutput = output
        let (stream, continuation) = AsyncStream.makeStream(of: Data.self)
        self.lines = stream.makeAsyncIterator()
        try self.process.run()
        let reader = Thread {
            var buffered = Data()
            while true {
                let chunk = output.fileHandleForReading.availableData
                guard !chunk.isEmpty else { break }
                buffered.append(chunk)
                while let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                    continuation.yield(Data(buffered[..<newline]))
                    buffered = Data(buffered[(newline + 1)...])
                }
            }
            continuation.finish()
        }
        reader.start()
    }

    func send(_ line: String) {
        self.input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// The next line of output that is a JSON object; throws when the process ends first.
    func readObject() async throws -> [String: Any] {
        while let line = await self.lines.next() {
            if let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any] { return object }
        }
        throw ComparisonFailure("\(self.process.arguments ?? []) ended early")
    }

    func finish() {
        try? self.input.fileHandleForWriting.close()
        self.process.waitUntilExit()
    }
}

struct ComparisonFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension Dictionary where Key == String, Value == Any {
    func stamps(_ key: String) -> [UInt64?] {
        (self[key] as? [Any] ?? []).map { ($0 as? NSNumber)?.uint64Value }
    }
}
