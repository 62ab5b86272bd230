import Foundation
import NIOConcurrencyHelpers

/// A real X server for a test: Xvfb with a black root window on a display
/// number of its own, stopped when the test is done.
public final class VirtualDisplay: Sendable {
    /// The display name, e.g. `:113`.
    public let name: String
    /// The screen width, pixels.
    public let width: Int
    /// The screen height, pixels.
    public let height: Int
    private let daemon: DaemonProcess

    /// Display numbers tried next: from this process's id, so parallel test processes rarely meet.
    private static let next = NIOLockedValueBox(100 + Int(getpid() % 400) * 4)

    private init(name: String, width: Int, height: Int, daemon: DaemonProcess) {
        self.name = name
        self.width = width
        self.height = height
        self.daemon = daemon
    }

    /// Starts Xvfb on a free display and waits until it takes connections.
    public static func start(width: Int, height: Int) async throws -> VirtualDisplay {
        for _ in 0..<20 {
            let number = Self.next.withLockedValue { number in
                defer { number += 1 }
                return number
            }
            let socket = "/tmp/.X11-unix/X\(number)"
            guard !FileManager.default.fileExists(atPath: socket),
                !FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock")
            else { continue }
            // -br: a black root window; -nolisten tcp: the socket only.
            let daemon = try DaemonProcess(
                "Xvfb", [":\(number)", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp", "-br", "-noreset"])
            let ready = await DaemonProcess.wait(for: .seconds(10)) {
                daemon.hasExited || FileManager.default.fileExists(atPath: socket)
            }
            if ready, !daemon.hasExited {
                return VirtualDisplay(name: ":\(number)", width: width, height: height, daemon: daemon)
            }
            await daemon.stop()  // taken meanwhile, or too slow: the next number
        }
        throw TestDaemonError.didNotStart("Xvfb")
    }

    /// Runs `body` with a display that is stopped afterwards.
    public static func with<Result>(
        width: Int = 640, height: Int = 360, _ body: (VirtualDisplay) async throws -> Result
    ) async throws -> Result {
        let display = try await Self.start(width: width, height: height)
        do {
            let result = try await body(display)
            await display.daemon.stop()
            return result
        } catch {
            await display.daemon.stop()
            throw error
        }
    }
}
