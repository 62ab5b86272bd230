import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Starts `executable` (found on PATH) with `arguments` and `environment`
/// added to ``childEnvironment(adding:)``, with `posix_spawnp`; its stdin,
/// stdout and stderr the descriptors given (/dev/null without one). The
/// caller reaps it with `waitpid`.
///
/// Not Foundation's `Process`: on Linux it learns that a child ended when a
/// socket it gave the child closes (swift-corelibs-foundation issue 4795),
/// and a child that leaves a daemon behind (the tmux client starts the tmux
/// server) never closes it, so `waitUntilExit` waited for ever on a fresh CI
/// machine. `waitpid` on the child's own pid cannot miss its end.
///
/// Children get ``childEnvironment(adding:)``: this process's environment
/// without the desktop session's, and the test process's own XDG cache
/// directory.
/// The XDG cache directory of this test process's children.
let testCacheHome = FileManager.default.temporaryDirectory.appendingPathComponent("cast-test-cache-\(getpid())").path

/// The variables through which a program finds the desktop session it runs
/// in: its X and Wayland displays, session and system buses, sound servers,
/// compositor sockets and runtime directory. A test's children never see the
/// developer's own: a test gives each daemon it starts what it needs, so a
/// `make test` on a desktop neither reaches nor activates the desktop's
/// portals, sound server or display (issue 32).
let desktopSessionVariables: Set<String> = [
    "DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS",
    "DBUS_SYSTEM_BUS_ADDRESS", "DBUS_STARTER_ADDRESS", "DBUS_STARTER_BUS_TYPE", "XDG_RUNTIME_DIR",
    "XDG_CURRENT_DESKTOP", "XDG_SESSION_TYPE", "XDG_SESSION_DESKTOP", "XDG_SESSION_ID", "XDG_SEAT",
    "XDG_VTNR", "DESKTOP_SESSION", "GNOME_SETUP_DISPLAY", "SWAYSOCK", "I3SOCK", "HYPRLAND_INSTANCE_SIGNATURE",
    "PULSE_SERVER", "PULSE_SINK", "PULSE_SOURCE", "PULSE_RUNTIME_PATH", "PULSE_COOKIE", "PIPEWIRE_REMOTE",
    "PIPEWIRE_RUNTIME_DIR", "PIPEWIRE_CORE", "SESSION_MANAGER",
]

/// The environment of a test's child process: this process's, without
/// ``desktopSessionVariables``, with this test process's XDG cache directory
/// (`cast` remembers the devices it finds there and asks their addresses at
/// its next start, and addresses from a test's namespaces must never be
/// asked from the machine's own network), then `environment` on top.
public func childEnvironment(adding environment: [String: String] = [:]) -> [String: String] {
    ProcessInfo.processInfo.environment.filter { !desktopSessionVariables.contains($0.key) }
        .merging(["XDG_CACHE_HOME": testCacheHome]) { $1 }
        .merging(environment) { $1 }
}

func spawnProcess(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:],
    standardInput: Int32? = nil, standardOutput: Int32? = nil, standardError: Int32? = nil
) throws -> pid_t {
    let environment = childEnvironment(adding: environment)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        for pointer in argv { free(pointer) }
        for pointer in envp { free(pointer) }
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let standardInput {
        posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
    } else {
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    }
    for (target, source) in [(Int32(1), standardOutput), (2, standardError)] {
        if let source {
            posix_spawn_file_actions_adddup2(&actions, source, target)
        } else {
            posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
        }
    }
    // Nothing else of this process: an inherited listening socket of
    // another test would keep its port taken after that test closed it.
    // (glibc ≥ 2.34 has it; Swift's Glibc module does not declare it.)
    guard let closeFrom = addCloseFrom else {
        throw TestDaemonError.didNotStart("\(executable): this C library cannot close inherited descriptors")
    }
    _ = closeFrom(&actions, 3)
    // The child starts with no signal blocked and default handlers:
    // threads of this process block some, and a child inherits its mask.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var pid: pid_t = 0
    let status = posix_spawnp(&pid, executable, &actions, &attributes, argv, envp)
    guard status == 0 else {
        throw TestDaemonError.didNotStart("\(executable): \(String(cString: strerror(status)))")
    }
    return pid
}

private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
private let addCloseFrom: AddCloseFrom? = dlsym(
    UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np"
).map { unsafeBitCast($0, to: AddCloseFrom.self) }

/// The exit status `waitpid` reported as a shell shows it: the exit code,
/// or 128 + the signal that ended the process.
func exitCode(ofWaitStatus status: Int32) -> Int32 {
    let signal = status & 0x7f
    return signal == 0 ? (status >> 8) & 0xff : 128 + signal
}
