public import CastRemoteDisplay
import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Captures a screen, monitor or window into a `RemoteDisplaySession`: on
/// X11 directly, on Wayland through the desktop's screen-cast portal and
/// PipeWire (``CaptureSource/portal``).
///
/// On its own thread it wakes at ``ScreenCaptureConfiguration/frameRate``,
/// and when anything changed (DAMAGE or the cursor on X11, a new PipeWire
/// buffer on Wayland) — or at least ``ScreenCaptureConfiguration/idleFrameRate``
/// times a second — takes the picture (X11: through MIT-SHM, the cursor
/// blended; PipeWire: the newest buffer, no copy), scales and converts it with
/// libyuv straight into one of the session's pooled buffers, and enqueues
/// the frame stamped with the time it was read. A still screen therefore
/// costs a few requests a second, and the receiver still gets pictures.
///
/// ```swift
/// let capture = try ScreenCapture(configuration: ScreenCaptureConfiguration(source: .screen))
/// let session = try await channel.beginSession(
///     configuration: RemoteDisplayConfiguration(
///         resolutions: [capture.sourceSize.scaledToFit(within: .init(width: 1920, height: 1080))]))
/// try capture.start(streamingTo: session)
/// let failure = await capture.finished()  // nil: stopped, or the session ended
/// ```
public final class ScreenCapture: Sendable {
    /// What is captured and how often.
    public let configuration: ScreenCaptureConfiguration
    /// The size of the source when capture was set up. A window that
    /// resizes later is scaled into the session's frames, aspect kept.
    public let sourceSize: RemoteDisplayConfiguration.Resolution
    /// For ``CaptureSource/portal``: pass it as
    /// ``ScreenCaptureConfiguration/restoreToken`` next time and the desktop
    /// shares the same source without asking. `nil` for X11 sources, and
    /// from portals older than version 4.
    public let restoreToken: String?
    private let grabber: NIOLockedValueBox<(any FrameGrabber)?>
    private let control: NIOLockedValueBox<Control>
    private let completion = CaptureCompletion()
    /// The converter of ``captureFrame(into:)`` (the capture thread has its own).
    private let oneShotConverter = FrameConverter()

    private struct Control {
        var started = false
        var stopping = false
        var frameRate: Int
        var statistics = ScreenCaptureStatistics()
    }

    /// Connects to the source: for X11 sources the X display, checking
    /// that the monitor or window exists; for ``CaptureSource/portal`` the
    /// desktop's screen-cast portal, which asks the user (this blocks until
    /// they answer: call it off the cooperative pool, or use
    /// ``open(configuration:)``), then the PipeWire stream it grants.
    ///
    /// - Throws: `CaptureError.Code.displayUnavailable`,
    ///   `CaptureError.Code.extensionMissing`,
    ///   `CaptureError.Code.sourceNotFound`,
    ///   `CaptureError.Code.unsupportedPixelFormat` or
    ///   `CaptureError.Code.invalidConfiguration`; for the
    ///   portal `CaptureError.Code.portalUnavailable`,
    ///   `CaptureError.Code.permissionDenied` or
    ///   `CaptureError.Code.pipeWireUnavailable`.
    public convenience init(configuration: ScreenCaptureConfiguration) throws(CaptureError) {
        try self.init(configuration: configuration, isCancelled: { false })
    }

    /// Sets the capture up as ``init(configuration:)`` does, on a thread of
    /// its own so waiting for the user's answer blocks no task; cancelling
    /// the calling task withdraws the request.
    public static func open(configuration: ScreenCaptureConfiguration) async throws(CaptureError) -> ScreenCapture {
        let cancelled = NIOLockedValueBox(false)
        // The capture made on the thread is handed over under a lock, not only through the
        // continuation: ThreadSanitizer does not see the continuation order the thread's writes
        // (the capture's stored properties) before the task's reads, and reported them as a race
        // (a fresh-clone CI run; swiftlang/swift#57803 is the same blind spot). The lock is seen.
        let handoff = NIOLockedValueBox(Result<ScreenCapture, CaptureError>?.none)
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                Thread.start(named: "cast.portal") {
                    let result: Result<ScreenCapture, CaptureError>
                    do throws(CaptureError) {
                        result = .success(
                            try ScreenCapture(
                                configuration: configuration, isCancelled: { cancelled.withLockedValue { $0 } }))
                    } catch {
                        result = .failure(error)
                    }
                    handoff.withLockedValue { $0 = result }
                    continuation.resume()
                }
            }
        } onCancel: {
            cancelled.withLockedValue { $0 = true }
        }
        guard let result = handoff.withLockedValue({ $0 }) else {
            throw CaptureError(.captureFailed, "the capture's thread ended without an answer")
        }
        return try result.get()
    }

    private init(configuration: ScreenCaptureConfiguration, isCancelled: () -> Bool) throws(CaptureError) {
        let configuration = try configuration.validated()
        let grabber: any FrameGrabber
        switch configuration.source {
        case .portal:
            let portal = try ScreenCastPortal(busAddress: configuration.busAddress)
            let grant = try portal.start(
                showsCursor: configuration.showsCursor, restoreToken: configuration.restoreToken,
                timeout: configuration.portalTimeout, isCancelled: isCancelled)
            self.restoreToken = grant.restoreToken
            grabber = try PipeWireGrabber(
                remote: grant.pipeWireRemote, nodeID: grant.nodeID, frameRate: configuration.frameRate, owner: portal)
        case .virtualMonitor(let size):
            self.restoreToken = nil
            grabber = try VirtualMonitor.open(size: size, configuration: configuration, isCancelled: isCancelled)
        case .screen, .output, .window:
            self.restoreToken = nil
            grabber = try X11Grabber(
                display: configuration.display, source: configuration.source, showsCursor: configuration.showsCursor)
        }
        let size = try grabber.size
        guard size.width > 0, size.height > 0 else {
            throw CaptureError(.sourceNotFound, "\(configuration.source) is entirely off the screen")
        }
        self.configuration = configuration
        self.sourceSize = RemoteDisplayConfiguration.Resolution(width: size.width, height: size.height)
        self.grabber = NIOLockedValueBox(grabber)
        self.control = NIOLockedValueBox(Control(frameRate: configuration.frameRate))
    }

    /// The monitors of the X display `display` (`nil`: `DISPLAY`), by the
    /// names ``CaptureSource/output(_:)`` takes.
    ///
    /// - Throws: `CaptureError.Code.displayUnavailable` or
    ///   `CaptureError.Code.extensionMissing` (no RandR 1.5).
    public static func monitors(display: String? = nil) throws(CaptureError) -> [X11Monitor] {
        try X11Connection(display: display).monitors()
    }

    /// Pictures per second while something changes, clamped to the idle
    /// rate…60. Capture also goes no faster than the session encodes: when
    /// congestion lowers its frame rate (`RemoteDisplayStatistics.videoFrameRate`),
    /// capture follows.
    public var frameRate: Int {
        get { self.control.withLockedValue { $0.frameRate } }
        set {
            let rate = min(max(newValue, self.configuration.idleFrameRate), 60)
            self.control.withLockedValue { $0.frameRate = rate }
        }
    }

    /// What the capture did so far.
    public var statistics: ScreenCaptureStatistics { self.control.withLockedValue { $0.statistics } }

    /// Captures one picture now into `frame`, scaled and converted, for
    /// apps that pace capture themselves; only before ``start(streamingTo:)``.
    ///
    /// - Throws: `CaptureError.Code.invalidConfiguration` once
    ///   started; `CaptureError.Code.sourceVanished` or
    ///   `CaptureError.Code.captureFailed` when the read fails.
    public func captureFrame(into frame: inout PixelBuffer) throws(CaptureError) {
        let failure = self.grabber.withLockedValue { grabber -> CaptureError? in
            guard let grabber else { return CaptureError(.invalidConfiguration, "capture already started") }
            do throws(CaptureError) {
                _ = try grabber.hasChanged()
                guard try grabber.withCurrentImage({ self.oneShotConverter.convert($0, into: &frame) }) else {
                    return CaptureError(.captureFailed, "the source has not delivered a picture yet")
                }
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Starts capturing into `session` on a thread of its own; it runs
    /// until ``stop()``, the session ends, or the source goes away.
    ///
    /// - Throws: `CaptureError.Code.invalidConfiguration` when
    ///   already started (a capture runs once), or when the session has no video stream.
    public func start(streamingTo session: RemoteDisplaySession) throws(CaptureError) {
        guard session.configuration.resolution.width > 0, session.createPixelBuffer() != nil else {
            throw CaptureError(.invalidConfiguration, "the session sends no video")
        }
        guard
            let grabber = self.grabber.withLockedValue({ grabber in
                defer { grabber = nil }
                return grabber
            })
        else {
            throw CaptureError(.invalidConfiguration, "this capture was already started")
        }
        self.control.withLockedValue { $0.started = true }
        Thread.start(named: "cast.capture") { [self] in
            self.completion.finish(self.run(grabber, into: session))
        }
    }

    /// Stops capturing; the thread ends after its current picture.
    public func stop() {
        let started = self.control.withLockedValue { control -> Bool in
            control.stopping = true
            return control.started
        }
        if !started { self.completion.finish(nil) }
    }

    /// Whether capture ended (stopped, the session ended, or the source went away).
    public var hasEnded: Bool { self.completion.hasEnded }

    /// Waits until capture ends: `nil` when it was stopped or the session
    /// ended, the error otherwise (`CaptureError.Code.sourceVanished`
    /// when the window closed, the X server went away or the user stopped
    /// sharing through the portal).
    public func finished() async -> CaptureError? {
        await self.completion.wait()
    }

    // MARK: The capture thread

    private func run(_ grabber: any FrameGrabber, into session: RemoteDisplaySession) -> CaptureError? {
        let converter = FrameConverter()
        var captureTimes = RecentDurations(capacity: 30)
        var nextTick = HostTime.now
        var lastCapture: HostTime?
        let idleInterval = Duration.seconds(1) / self.configuration.idleFrameRate
        while true {
            let (stopping, ownRate) = self.control.withLockedValue { ($0.stopping, $0.frameRate) }
            if stopping { return nil }
            // No faster than the session encodes: congestion may have lowered its rate.
            let frameRate = max(min(ownRate, session.currentStatistics.videoFrameRate ?? ownRate), 1)
            Self.sleep(until: nextTick)
            let now = HostTime.now
            nextTick = max(nextTick.advanced(by: .seconds(1) / frameRate), now)
            do {
                let idleDue = lastCapture.map { $0.duration(to: now) >= idleInterval } ?? true
                guard try grabber.hasChanged() || idleDue else {
                    self.control.withLockedValue { $0.statistics.ticksUnchanged += 1 }
                    continue
                }
                guard var frame = session.createPixelBuffer() else {
                    self.control.withLockedValue { $0.statistics.framesDropped += 1 }
                    continue
                }
                // Nothing is sent before the source's first picture (a PipeWire stream starting).
                guard try grabber.withCurrentImage({ converter.convert($0, into: &frame) }) else {
                    self.control.withLockedValue { $0.statistics.ticksUnchanged += 1 }
                    continue
                }
                let took = now.duration(to: HostTime.now)
                lastCapture = now
                let accepted = try session.enqueueVideoFrame(frame, pts: now)
                captureTimes.append(took)
                self.control.withLockedValue { control in
                    if accepted {
                        control.statistics.framesCaptured += 1
                    } else {
                        control.statistics.framesDropped += 1
                    }
                    control.statistics.averageCaptureTime = captureTimes.mean
                }
            } catch let error as CaptureError {
                // A window or monitor found at the start and missing now went away.
                guard error.code == .sourceNotFound else { return error }
                return CaptureError(.sourceVanished, "\(self.configuration.source) went away", cause: error)
            } catch {
                // The session ended (the only error enqueueing throws once the size matches).
                return nil
            }
        }
    }

    private static func sleep(until time: HostTime) {
        var deadline = timespec(
            tv_sec: Int(time.nanoseconds / 1_000_000_000), tv_nsec: Int(time.nanoseconds % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
    }
}

/// The last few durations, for a moving mean without allocating per sample.
struct RecentDurations {
    private var samples: [Duration]
    private var next = 0
    private var count = 0

    init(capacity: Int) {
        self.samples = Array(repeating: .zero, count: capacity)
    }

    mutating func append(_ sample: Duration) {
        self.samples[self.next] = sample
        self.next = (self.next + 1) % self.samples.count
        self.count = min(self.count + 1, self.samples.count)
    }

    var mean: Duration {
        guard self.count > 0 else { return .zero }
        return self.samples[0..<self.count].reduce(.zero, +) / self.count
    }
}
