// The whole Remote Display send path against raw libvpx, in one run:
// pooled buffer → encoder thread (VP8) → AES-128-CTR → RTP packetizer →
// pacer → UDP on loopback → the emulator's receiver reassembles and
// acknowledges (decoding off, so the receiver costs little). Each sample
// sends `framesPerSample` frames and ends when the receiver has them all;
// one frame waits while the previous encodes, as a live app's would.
// Target: time ratio to "VP8 raw libvpx" of the same size ≤ 1.10.
//
// AES-128-CTR throughput: the frame cipher's OpenSSL EVP calls, per MiB.

import Benchmark
import CastChannels
import CastEmulator
import CastLogging
import CastRemoteDisplay
import CastTransport
import RawCodecs

/// A mirroring session against an in-process emulator on loopback.
final class LoopbackStreaming: @unchecked Sendable {
    // @unchecked Sendable: `sent` is its only mutable state, changed and read
    // only by `send(_:)`, which one benchmark closure awaits at a time; the
    // other properties are `let`s of Sendable types.
    let emulator: CastEmulator
    let connection: CastConnection
    let session: RemoteDisplaySession
    let source: SourceFrames
    var sent = 0

    init(source: SourceFrames) async throws {
        let quiet = CastLogger(filter: CastLogFilter(minimumLevel: .none))
        let emulator = try CastEmulator(logger: quiet)
        emulator.streaming = StreamingReceiverConfiguration(decodes: false)
        try await emulator.start()
        let connection = CastConnection(host: "127.0.0.1", port: emulator.port, logger: quiet)
        try await connection.connect()
        try await connection.openVirtualConnection(to: "receiver-0")
        let receiver = ReceiverChannel()
        receiver.attach(to: connection, destinationID: "receiver-0", logger: quiet)
        let application = try await receiver.launch(appID: CastApplicationID.mirroring)
        guard let transportID = application.transportID else {
            throw BenchmarkSetupError(description: "the mirroring app has no transport")
        }
        try await connection.openVirtualConnection(to: transportID)
        let channel = RemoteDisplayChannel(logger: quiet)
        channel.attach(to: connection, destinationID: transportID, logger: quiet)
        self.session = try await channel.beginSession(
            configuration: RemoteDisplayConfiguration(
                resolutions: [RemoteDisplayConfiguration.Resolution(width: source.width, height: source.height)],
                maximumVideoBitrate: VP8EncoderConfiguration(width: source.width, height: source.height).bitrate,
                audio: nil, targetDelay: .seconds(5)))
        self.emulator = emulator
        self.connection = connection
        self.source = source
    }

    /// Sends `count` frames, each handed over once the one before last has arrived.
    func send(_ count: Int) async throws {
        let target = self.sent + count
        while self.sent < target {
            while self.received < self.sent - 1 { await Task.yield() }
            guard var buffer = self.session.createPixelBuffer() else {
                await Task.yield()
                continue
            }
            let frame = self.source.planes[self.sent % distinctFrames]
            for plane in 0..<3 {
                try buffer.copyPlane(plane, from: frame[plane], bytesPerRow: self.source.rowBytes(plane))
            }
            try self.session.enqueueVideoFrame(buffer, pts: pts(self.sent))
            self.sent += 1
        }
        while self.received < target { await Task.yield() }
    }

    private var received: Int { self.emulator.streamingReport?.video?.framesReceived ?? 0 }

    func close() async {
        self.session.stop()
        await self.connection.close()
        await self.emulator.stop()
    }
}

func streamingBenchmarks() {
    for (width, height) in [(1280, 720), (1920, 1080)] {
        Benchmark("Send path \(width)x\(height) ×\(framesPerSample) (encode→encrypt→packetize→UDP)") { benchmark in
            let streaming = try await LoopbackStreaming(source: SourceFrames(width: width, height: height))
            try await streaming.send(5)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations { try await streaming.send(framesPerSample) }
            benchmark.stopMeasurement()
            await streaming.close()
        }
    }

    Benchmark("AES-128-CTR 1 MiB (OpenSSL EVP, as the frame cipher calls it)") { benchmark in
        let input = [UInt8](repeating: 0x5A, count: 1 << 20)
        var output = [UInt8](repeating: 0, count: 1 << 20)
        let key = [UInt8](repeating: 1, count: 16)
        let nonce = [UInt8](repeating: 2, count: 16)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(raw_aes128_ctr(key, nonce, input, &output, input.count))
        }
    }
}
