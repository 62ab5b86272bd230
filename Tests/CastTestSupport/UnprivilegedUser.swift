public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs a test's programs as an unprivileged user, as people run the SDK.
///
/// The suite runs as root in CI, and root hid a bug that made the product
/// unusable for everyone else (issue 32: a TCP option set at the socket
/// level, which only CAP_NET_ADMIN may set). When the tests run as root,
/// ``command(_:)`` starts a program as `nobody` (uid and gid 65534, no
/// supplementary groups, no capabilities) through util-linux's `setpriv`;
/// when they already run as an ordinary user, it runs the program as is.
public final class UnprivilegedUser: Sendable {
    /// The user id the programs run as.
    public static let uid: uid_t = 65534
    /// Whether programs can be run unprivileged here: as root with `setpriv`,
    /// or as any other user.
    public static let isAvailable =
        getuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

    /// The user's home: HOME and every XDG directory live here, owned by the user.
    public let home: URL
    /// Where links to executables the user could not reach are kept.
    private let binaries: URL

    private init(home: URL, binaries: URL) {
        self.home = home
        self.binaries = binaries
    }

    /// Makes the user's home for a test; ``remove()`` deletes it.
    public static func make() throws -> UnprivilegedUser {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("cast-user-\(UUID().uuidString)")
        let home = root.appendingPathComponent("home")
        let binaries = root.appendingPathComponent("bin")
        for folder in [home, binaries] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
        chmod(root.path, 0o755)
        chmod(binaries.path, 0o755)
        if getuid() == 0 {
            guard chown(home.path, Self.uid, Self.uid) == 0 else {
                throw TestDaemonError.didNotStart("chown \(home.path): \(String(cString: strerror(errno)))")
            }
        }
        return UnprivilegedUser(home: home, binaries: binaries)
    }

    /// What the user's programs get on top of ``childEnvironment(adding:)``:
    /// a home and XDG directories of their own.
    public var environment: [String: String] {
        [
            "HOME": self.home.path, "XDG_CACHE_HOME": self.home.path + "/.cache",
            "XDG_CONFIG_HOME": self.home.path + "/.config", "XDG_STATE_HOME": self.home.path + "/.local/state",
            "XDG_DATA_HOME": self.home.path + "/.local/share", "USER": "nobody", "LOGNAME": "nobody",
        ]
    }

    /// `arguments` as a command that runs them as the user: behind `setpriv`
    /// as root, unchanged otherwise. An executable the user cannot reach
    /// (a build folder under a home only root may enter) is run through a
    /// hard link in a folder the user can read, or a copy where no link can
    /// be made.
    public func command(_ arguments: [String]) throws -> [String] {
        guard getuid() == 0, let executable = arguments.first else { return arguments }
        return [
            "/usr/bin/setpriv", "--reuid=\(Self.uid)", "--regid=\(Self.uid)", "--clear-groups", "--inh-caps=-all",
            "--bounding-set=-all", "--",
        ] + [try self.reachable(executable)] + arguments.dropFirst()
    }

    /// Whether `path` is an executable the user may run (every folder on the way searchable).
    private static func userCanRun(_ path: String) -> Bool {
        var folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        while folder.path != "/" {
            var status = stat()
            guard stat(folder.path, &status) == 0, status.st_mode & 0o001 != 0 else { return false }
            folder.deleteLastPathComponent()
        }
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & 0o001 != 0
    }

    private func reachable(_ executable: String) throws -> String {
        guard executable.hasPrefix("/"), !Self.userCanRun(executable) else { return executable }
        let target = self.binaries.appendingPathComponent(URL(fileURLWithPath: executable).lastPathComponent)
        if FileManager.default.fileExists(atPath: target.path) { return target.path }
        if link(executable, target.path) != 0 {
            try FileManager.default.copyItem(atPath: executable, toPath: target.path)
        }
        return target.path
    }

    /// Deletes the user's home and links.
    public func remove() {
        try? FileManager.default.removeItem(at: self.home.deletingLastPathComponent())
    }
}
