// The control channel's costs, each against a baseline run in the same process.
//
// Codec: frame + decode a typical 300-byte MEDIA_STATUS CastMessage
// (CastMessageFramer both ways), against parsing the same JSON payload with
// JSONSerialization — the step every channel does next anyway. The ratio says
// what the transport's codec costs relative to the JSON the app needs.
//
// Round trips: one message to the emulator and its reply back, over one
// loopback TLS CastConnection (actor, router, heartbeat, virtual-connection
// rule, emulator responder), against the same frame bytes echoed over a bare
// NIO TLS socket pair. The ratio is the stack's overhead over TLS itself.

import Benchmark
import BenchmarkSupport
import CastEmulator
import CastLogging
import CastTransport
import Foundation
import NIOCore

let messagesPerSample = 1_000
let roundTripsPerSample = 100
let echoNamespace = "urn:x-cast:com.example.bench"

/// A MEDIA_STATUS of about 300 bytes, as a receiver sends while playing.
let mediaStatusText = #"""
    {"type":"MEDIA_STATUS","requestId":0,"status":[{"mediaSessionId":1,"playbackRate":1,\#
    "playerState":"PLAYING","currentTime":42.5,"supportedMediaCommands":12303,\#
    "volume":{"level":1,"muted":false},"activeTrackIds":[],"currentItemId":1,\#
    "repeatMode":"REPEAT_OFF","media":{"contentId":"https://example.com/a.mp4",\#
    "streamType":"BUFFERED","contentType":"video/mp4","duration":596.5}}]}
    """#
let mediaStatus = CastMessage(
    namespace: "urn:x-cast:com.google.cast.media",
    sourceID: "web-5",
    destinationID: "sender-123456",
    payload: .string(mediaStatusText)
)

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .throughput],
        maxDuration: .seconds(5),
        maxIterations: 200
    )

    Benchmark("Codec JSONSerialization parse ×\(messagesPerSample) (baseline)") { benchmark in
        let payload = Data(mediaStatusText.utf8)
        benchmark.startMeasurement()
        for _ in 0..<messagesPerSample {
            blackHole(try JSONSerialization.jsonObject(with: payload))
        }
    }

    Benchmark("Codec CastMessageFramer frame+decode ×\(messagesPerSample)") { benchmark in
        let allocator = ByteBufferAllocator()
        benchmark.startMeasurement()
        for _ in 0..<messagesPerSample {
            var frame = try CastMessageFramer.frame(mediaStatus, allocator: allocator)
            blackHole(try CastMessageFramer.nextMessage(from: &frame))
        }
    }

    Benchmark("Round trip bare NIO TLS echo ×\(roundTripsPerSample) (baseline)") { benchmark in
        let frame = Array(try CastMessageFramer.frame(mediaStatus).readableBytesView)
        let pair = try await TLSEchoPair.start()
        for _ in 0..<10 { try await pair.roundTrip(frame) }
        benchmark.startMeasurement()
        for _ in 0..<roundTripsPerSample { try await pair.roundTrip(frame) }
        benchmark.stopMeasurement()
        try await pair.stop()
    }

    Benchmark("Round trip CastConnection ↔ CastEmulator ×\(roundTripsPerSample)") { benchmark in
        let quiet = CastLogger(filter: CastLogFilter(minimumLevel: .none))
        let emulator = try CastEmulator(logger: quiet)
        emulator.respond(to: echoNamespace) { message in
            [
                CastMessage(
                    namespace: message.namespace,
                    sourceID: message.destinationID,
                    destinationID: message.sourceID,
                    payload: message.payload
                )
            ]
        }
        try await emulator.start()
        let connection = CastConnection(host: "127.0.0.1", port: emulator.port, logger: quiet)
        try await connection.connect()
        try await connection.openVirtualConnection(to: "bench-app")
        var replies = connection.messages(namespace: echoNamespace).makeAsyncIterator()
        func roundTrip() async throws {
            try await connection.send(namespace: echoNamespace, to: "bench-app", text: mediaStatusText)
            guard await replies.next() != nil else { throw BenchmarkSupportError(description: "connection ended") }
        }
        for _ in 0..<10 { try await roundTrip() }
        benchmark.startMeasurement()
        for _ in 0..<roundTripsPerSample { try await roundTrip() }
        benchmark.stopMeasurement()
        await connection.close()
        await emulator.stop()
    }
}
