import CastCapture
import CastKit
import Foundation
import NIOConcurrencyHelpers

/// The stream the tray runs for a menu item, in its own process: the
/// screen, a window or a second screen with `DesktopMirror`, the sound with
/// `DesktopSoundMirror`, until the menu stops it or it ends by itself.
final class TrayStream: Sendable {
    /// What happened to the stream.
    enum Event: Sendable {
        /// It streams.
        case started
        /// It ended: why, when it failed (one sentence).
        case ended(failure: String?)
    }

    let casting: TrayCasting
    private let stopping = NIOLockedValueBox(false)

    private init(casting: TrayCasting) {
        self.casting = casting
    }

    /// Starts streaming `kind` to `device` with `options`' connection and
    /// trust; `events` hears of the start and the end.
    static func start(
        _ kind: TrayCasting.Kind, to device: CastDevice, options: CastOptions,
        configuration: TrayApplication.Configuration, events: @escaping @Sendable (Event) -> Void
    ) -> TrayStream {
        let stream = TrayStream(casting: TrayCasting(kind: kind, deviceName: device.friendlyName, isStarted: false))
        Task {
            do {
                try await stream.run(kind, to: device, options: options, configuration: configuration, events: events)
                events(.ended(failure: nil))
            } catch {
                events(.ended(failure: Self.sentence(for: error)))
            }
        }
        return stream
    }

    /// Why a stream failed, in one sentence: a connection's failure by its
    /// summary ("cannot connect to 192.0.2.7:8009: connection refused"),
    /// not its chain of attempts.
    static func sentence(for error: any Error) -> String {
        switch error {
        case let error as CastTransportError: error.summary
        default: "\(error)"
        }
    }

    /// Asks the stream to stop: it ends its session and stops the device's app.
    func stop() {
        self.stopping.withLockedValue { $0 = true }
    }

    private func run(
        _ kind: TrayCasting.Kind, to device: CastDevice, options: CastOptions,
        configuration: TrayApplication.Configuration, events: @Sendable (Event) -> Void
    ) async throws {
        let link = try await CastDeviceLink.connect(
            to: device, configuration: options.connection, factory: options.connectionFactory ?? .network,
            logger: options.logger)
        do {
            switch kind {
            case .screen, .window, .extendedScreen:
                try await self.mirror(kind, on: link, configuration: configuration, events: events)
            case .sound:
                let mirror = try await DesktopSoundMirror.start(on: link)
                events(.started)
                let reason = await self.waitForEnd { await mirror.endReason }
                let outcome = await mirror.stop()
                if let failure = outcome.failure { throw failure }
                if case .sessionEnded(.connectionLost) = reason {
                    throw TrayStreamFailure.connectionLost(to: link.host, "it did not come back")
                }
            }
            await link.close()
        } catch {
            await link.close()
            throw error
        }
    }

    /// The screen (the portal on Wayland), through the portal a window, or a
    /// second screen the desktop makes (1920×1080, as `DesktopMirror` sends at most).
    private func mirror(
        _ kind: TrayCasting.Kind, on link: CastDeviceLink, configuration: TrayApplication.Configuration,
        events: @Sendable (Event) -> Void
    ) async throws {
        let source =
            switch kind {
            case .window: CaptureSource.portal
            case .extendedScreen: CaptureSource.virtualMonitor(.hd1080)
            default: CaptureSource.forCurrentSession(environment: ProcessInfo.processInfo.environment)
            }
        let capture = ScreenCaptureConfiguration(
            display: configuration.display, source: source, restoreToken: configuration.portalGrant?.restoreToken)
        let mirror = try await DesktopMirror.start(
            on: link, configuration: DesktopMirror.Configuration(capture: capture), logger: link.logger)
        do {
            try configuration.portalGrant?.keep(mirror.capture.restoreToken)
        } catch {
            link.logger.makeLogger(subsystem: "tray").warning("cannot keep the portal's answer for next time: \(error)")
        }
        events(.started)
        let reason = await self.waitForEnd { await mirror.endReason }
        if case .connectionLost(let lost) = reason {
            _ = await mirror.stop(stoppingApplication: false)
            throw TrayStreamFailure.connectionLost(to: link.host, lost.summary)
        }
        let outcome = await mirror.stop()
        if let failure = outcome.failure { throw failure }
    }

    /// Waits until the menu stops the stream (`nil`) or it ends by itself (why).
    private func waitForEnd<Reason>(_ endReason: () async -> Reason?) async -> Reason? {
        while !self.stopping.withLockedValue({ $0 }) {
            if let reason = await endReason() { return reason }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }
}

/// The device's connection closed while streaming: it went away.
struct TrayStreamFailure: Error, CustomStringConvertible {
    let description: String

    static func connectionLost(to host: String, _ summary: String) -> TrayStreamFailure {
        TrayStreamFailure(
            description:
                "lost the connection to \(host) while mirroring (\(summary)): the device went away or was turned off")
    }
}
