public import CastChannels
public import CastEmulator
public import CastLogging
public import CastRemoteDisplay
@_spi(Receiver) public import CastTransport
import Foundation
import Testing

/// A started emulator with the mirroring app launched and one sender whose
/// Remote Display channel is attached to the app's transport, over real TLS
/// and real UDP on loopback. Shared by the Remote Display and capture tests.
public struct StreamingFixture {
    public let emulator: CastEmulator
    public let connection: CastConnection
    public let receiver: ReceiverChannel
    public let channel: RemoteDisplayChannel
    public let application: ReceiverApplication

    /// A logger that prints nothing.
    public static let logger = CastLogger(filter: CastLogFilter(minimumLevel: .none))

    /// Runs `body` with the fixture, in its turn among the real-time tests
    /// of `lane` (with no lane, the caller holds the turn already); tears
    /// everything down whatever happens. The channel's ANSWER wait and
    /// first-frame deadline run on `clock`.
    public static func with(
        streaming: StreamingReceiverConfiguration? = StreamingReceiverConfiguration(),
        profile: ReceiverProfile = .chromecastWithGoogleTV,
        application: String = CastApplicationID.mirroring,
        clock: any Clock<Duration> = ContinuousClock(),
        lane: RealTimeTurns.Lane? = .thisProcess,
        _ body: (StreamingFixture) async throws -> Void
    ) async throws {
        guard let lane else {
            return try await Self.run(
                streaming: streaming, profile: profile, application: application, clock: clock, body)
        }
        try await RealTimeTurns.take(lane) {
            try await Self.run(streaming: streaming, profile: profile, application: application, clock: clock, body)
        }
    }

    /// `streaming` replaces the profile's streaming behaviour unless `nil`.
    private static func run(
        streaming: StreamingReceiverConfiguration?, profile: ReceiverProfile, application: String,
        clock: any Clock<Duration>, _ body: (StreamingFixture) async throws -> Void
    ) async throws {
        let emulator = try CastEmulator(
            configuration: CastEmulatorConfiguration(profile: profile), logger: StreamingFixture.logger)
        if let streaming { emulator.streaming = streaming }
        try await emulator.start()
        let connection = CastConnection(
            host: "127.0.0.1", port: emulator.port,
            configuration: CastConnectionConfiguration(deviceAuthentication: .off), logger: StreamingFixture.logger)
        let receiver = ReceiverChannel()
        let channel = try #require(RemoteDisplayChannel(logger: StreamingFixture.logger, clock: clock))
        let result: Result<Void, any Error>
        do {
            try await connection.connect()
            try await connection.openVirtualConnection(to: "receiver-0")
            receiver.attach(to: connection, destinationID: "receiver-0", logger: StreamingFixture.logger)
            let application = try await receiver.launch(appID: application)
            let transportID = try #require(application.transportID)
            try await connection.openVirtualConnection(to: transportID)
            channel.attach(to: connection, destinationID: transportID, logger: StreamingFixture.logger)
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
    /// emulator's PSNR reference (call before beginning the session); with
    /// `pictureFormat`, its pictures go in as packed pictures of that format.
    public func prepareSource(
        width: Int, height: Int, frameRate: Int = 30, pictureFormat: PackedPixelFormat? = nil
    ) throws -> TestSignal {
        let source = try TestSignal(
            width: width, height: height, frameRate: frameRate, start: .now.advanced(by: .milliseconds(300)),
            pictureFormat: pictureFormat)
        self.emulator.streaming.videoReference = { source.luma(at: $0) }
        return source
    }

    /// Polls the emulator's report until `condition` holds or `timeout` passes; the last report.
    public func report(
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

public func abs(_ duration: Duration) -> Duration {
    duration < .zero ? .zero - duration : duration
}
