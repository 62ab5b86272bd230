public import Foundation

/// The XDG base directories where the framework keeps what outlives a
/// process (the XDG Base Directory Specification): the saved session and
/// first-run flags in ``state``, downloaded artwork in ``cache``, user
/// preferences in ``configuration``.
public enum XDGDirectory: Sendable, Hashable {
    /// `$XDG_STATE_HOME`, `~/.local/state` by default.
    case state
    /// `$XDG_CACHE_HOME`, `~/.cache` by default.
    case cache
    /// `$XDG_CONFIG_HOME`, `~/.config` by default.
    case configuration

    /// The directory, from the environment or the specification's default
    /// under the home directory (an empty or relative variable is ignored,
    /// as the specification says).
    public func url(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let (variable, fallback) =
            switch self {
            case .state: ("XDG_STATE_HOME", ".local/state")
            case .cache: ("XDG_CACHE_HOME", ".cache")
            case .configuration: ("XDG_CONFIG_HOME", ".config")
            }
        if let path = environment[variable], path.hasPrefix("/") {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        let home =
            environment["HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
            ?? FileManager.default.homeDirectoryForCurrentUser
        return home.appendingPathComponent(fallback, isDirectory: true)
    }

    /// `name` in this directory's folder for `application` (the process's
    /// name by default): e.g. `~/.local/state/cast/session.json`.
    public func file(
        _ name: String, application: String = ProcessInfo.processInfo.processName,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        self.url(environment: environment).appendingPathComponent(application, isDirectory: true)
            .appendingPathComponent(name)
    }
}
