import Foundation

/// A Wayland desktop for a test: sway 1.7, headless (no GPU, no input, the
/// pixman renderer), run by an ``UnprivilegedUser`` (sway refuses root),
/// with Xwayland for X programs, as a wlroots desktop runs on a laptop.
public final class HeadlessSway: Sendable {
    /// The Wayland socket's name (`WAYLAND_DISPLAY`), in ``runtimeDirectory``.
    public let waylandDisplay: String
    /// Xwayland's display (`:0`…), which sway gives the programs it starts.
    public let xDisplay: String
    /// The session's `XDG_RUNTIME_DIR`.
    public let runtimeDirectory: String
    /// sway's IPC socket (`SWAYSOCK`), where `swaymsg` talks to it.
    public let ipcSocket: String
    private let process: DaemonProcess

    private init(
        waylandDisplay: String, xDisplay: String, runtimeDirectory: String, ipcSocket: String, process: DaemonProcess
    ) {
        self.waylandDisplay = waylandDisplay
        self.xDisplay = xDisplay
        self.runtimeDirectory = runtimeDirectory
        self.ipcSocket = ipcSocket
        self.process = process
    }

    /// The installed sway's version (`sway --version`: "sway version 1.7"), as numbers.
    public static func version() throws -> [Int] {
        let output = try CommandOutput.waiting(for: ["/usr/bin/sway", "--version"], timeLimit: .seconds(10))
        let text = output.text.split(separator: " ").last ?? ""
        return text.split(separator: ".").compactMap { Int($0.prefix { $0.isNumber }) }
    }

    /// What a program of this session has: the user's environment, the runtime directory and both displays.
    public func environment(of user: UnprivilegedUser) -> [String: String] {
        user.environment.merging([
            "XDG_RUNTIME_DIR": self.runtimeDirectory, "WAYLAND_DISPLAY": self.waylandDisplay,
            "XDG_SESSION_TYPE": "wayland", "DISPLAY": self.xDisplay,
        ]) { _, new in new }
    }

    /// Runs `body` with sway started for `user` (its one output `HEADLESS-1`
    /// `width × height` when given); stops it after.
    public static func with<Result>(
        as user: UnprivilegedUser, output: (width: Int, height: Int)? = nil,
        _ body: (HeadlessSway) async throws -> Result
    ) async throws -> Result {
        let sway = try await Self.start(as: user, output: output)
        do {
            let result = try await body(sway)
            await sway.process.stop()
            return result
        } catch {
            await sway.process.stop()
            throw error
        }
    }

    /// Lets this process (root, in CI) draw on the session's Xwayland, which
    /// admits only its own user: `xhost +si:localuser:root`, run as `user`.
    public func admitThisProcessToXwayland(as user: UnprivilegedUser) throws {
        let output = try CommandOutput.waiting(
            for: try user.command([
                "/usr/bin/xhost", "+si:localuser:\(String(cString: getpwuid(getuid()).pointee.pw_name))",
            ]),
            environment: self.environment(of: user), timeLimit: .seconds(10))
        guard output.status == 0 else { throw TestDaemonError.requestFailed("xhost: \(output.text)") }
    }

    private static func start(as user: UnprivilegedUser, output: (width: Int, height: Int)?) async throws
        -> HeadlessSway
    {
        let runtime = user.home.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        let ready = user.home.appendingPathComponent("session")
        // sway's `exec` runs once its Wayland socket, Xwayland's display and its IPC socket exist.
        let config = user.home.appendingPathComponent("sway.config")
        let size = output.map { "output HEADLESS-1 resolution \($0.width)x\($0.height)\n" } ?? ""
        try """
        xwayland enable
        \(size)exec sh -c 'echo "$WAYLAND_DISPLAY $DISPLAY $SWAYSOCK" > \(ready.path).part && mv \(ready.path).part \(ready.path)'
        """.write(to: config, atomically: true, encoding: .utf8)
        if getuid() == 0 {
            for path in [runtime.path, config.path] { chown(path, UnprivilegedUser.uid, UnprivilegedUser.uid) }
        }
        chmod(runtime.path, 0o700)
        let command = try user.command(["/usr/bin/sway", "--config", config.path])
        let process = try DaemonProcess(
            command[0], Array(command.dropFirst()),
            environment: user.environment.merging([
                "XDG_RUNTIME_DIR": runtime.path, "WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1",
                "WLR_RENDERER": "pixman",
            ]) { _, new in new })
        let started = await DaemonProcess.wait(for: .seconds(20)) {
            process.hasExited || FileManager.default.fileExists(atPath: ready.path)
        }
        guard started, !process.hasExited,
            let line = try? String(contentsOf: ready, encoding: .utf8).split(separator: " "), line.count == 3
        else {
            await process.stop()
            throw TestDaemonError.didNotStart("sway (headless) wrote no session file within 20 s")
        }
        return HeadlessSway(
            waylandDisplay: String(line[0]), xDisplay: String(line[1]), runtimeDirectory: runtime.path,
            ipcSocket: line[2].trimmingCharacters(in: .whitespacesAndNewlines), process: process)
    }
}
