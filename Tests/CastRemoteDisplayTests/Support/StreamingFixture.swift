import CastChannels
import CastEmulator
import CastLogging
import CastRemoteDisplay
import CastTestSupport
import CastTransport
import Foundation
import Testing

let quietLogger = CastLogger(filter: CastLogFilter(minimumLevel: .none))

/// A started emulator with the mirroring app launched and one sender whose
/// Remote Display channel is attached to the app's transport, over real TLS
/// and real UDP on loopback.
struct StreamingFixture {
    let emulator: CastEmulator
    let connection: CastConnection
    let receiver: ReceiverChannel
    let channel: RemoteDisplayChannel
    let application: ReceiverApplication

    /// Runs `body` with the fixture, in its turn among the real-time tests;
    /// tears everything down whatever happens.
    static func with(
        streaming: StreamingReceiverConfiguration? = StreamingReceiverConfiguration(),
        profile: ReceiverProfile = .chromecastWithGoogleTV,
        application: String = CastApplicationID.mirroring,
        _ body: (StreamingFixture) async throws -> Void
    ) async throws {
        try await RealTimeTurns.take {
            try await Self.run(streaming: streaming, profile: profile, application: application, body)
        }
    }

    /// `streaming` replaces the profile's streaming behaviour unless `nil`.
    private static func run(
        streaming: StreamingReceiverConfiguration?, profile: ReceiverProfile, application: String,
        _ body: (StreamingFixture) async throws -> Void
    ) async throws {
        let emulator = try CastEmulator(
            configuration: CastEmulatorConfiguration(profile: profile), logger: quietLogger)
        if let streaming { emulator.streaming = streaming }
        try await emulator.start()
        let connection = CastConnection(
            host: "127.0.0.1", port: emulator.port,
            configuration: CastConnectionConfiguration(deviceAuthentication: .off), logger: quietLogger)
        let receiver = ReceiverChannel()
        let channel = RemoteDisplayChannel(logger: quietLogger)
        let result: Result<Void, any Error>
        do {
            try await connection.connect()
            try await connection.openVirtualConnection(to: "receiver-0")
            receiver.attach(to: connection, destinationID: "receiver-0", logger: quietLogger)
            let application = try await receiver.launch(appID: application)
            let transportID = try #require(application.transportID)
            try await connection.openVirtualConnection(to: transportID)
            channel.attach(to: connection, destinationID: transportID, logger: quietLogger)
            try await body(
                StreamingFixture(
                    emulator: emulator, connection: connection, receiver: receiver, channel: channel,
                    application: application))
            result = .success(())
        } catch {
            result = .failure(error)
        }
        channel.currentSession?.stop()
        channel.detach()
        receiver.detach()
        await connection.close()
        await emulator.stop()
        try result.get()
    }

    /// A media source whose first frame is due shortly, registered as the
    /// emulator's PSNR reference (call before beginning the session).
    func prepareSource(width: Int, height: Int, frameRate: Int = 30) throws -> TestSignal {
        let source = try TestSignal(
            width: width, height: height, frameRate: frameRate, start: .now.advanced(by: .milliseconds(300)))
        self.emulator.streaming.videoReference = { source.luma(at: $0) }
        return source
    }

    /// Polls the emulator's report until `condition` holds or `timeout` passes; the last report.
    func report(
        within timeout: Duration = .seconds(10), until condition: (StreamingReport) -> Bool
    ) async throws -> StreamingReport? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let report = self.emulator.streamingReport, condition(report) { return report }
            try await Task.sleep(for: .milliseconds(20))
        }
        return self.emulator.streamingReport
    }
}

func abs(_ duration: Duration) -> Duration {
    duration < .zero ? .zero - duration : duration
}
