import CastChannels
public import Foundation

/// Cast speakers as a systemd user service, started with the user's
/// session after the sound server: the unit written to
/// `$XDG_CONFIG_HOME/systemd/user/` (and removed). It is `Type=notify`: the
/// program says `READY=1` once its sinks can be made
/// (``SystemdNotification``); SIGTERM should stop it cleanly, the sinks
/// removed, and `systemctl --user reload` sends SIGHUP. Its log goes to the
/// journal. What `cast speakers --install-service` writes.
///
/// ```swift
/// let file = try SpeakersService.install(arguments: ["speakers", "--grace", "5"])
/// ```
public enum SpeakersService {
    /// The unit's name.
    public static let unitName = "cast-speakers.service"

    /// Where the unit goes.
    public static var unitFile: URL {
        XDGDirectory.configuration.url().appendingPathComponent("systemd/user", isDirectory: true)
            .appendingPathComponent(Self.unitName)
    }

    /// The unit that runs `executable` with `arguments`, each word quoted for systemd.
    public static func unit(executable: String, arguments: [String]) -> String {
        """
        [Unit]
        Description=Cast speakers, speaker groups and TVs as sound outputs (cast speakers)
        Documentation=man:cast-speakers(1)
        After=pipewire-pulse.service pulseaudio.service

        [Service]
        Type=notify
        ExecStart=\(([executable] + arguments).map(Self.quoted).joined(separator: " "))
        ExecReload=/bin/kill -HUP $MAINPID
        Restart=on-failure
        RestartSec=5

        [Install]
        WantedBy=default.target

        """
    }

    /// `word` as one ExecStart word: double-quoted, with `\` and `"` escaped
    /// and systemd's specifiers (`%`) and variables (`$`) doubled, so it
    /// reaches the command as given (systemd.service(5), "Command lines").
    public static func quoted(_ word: String) -> String {
        var text = ""
        for character in word {
            switch character {
            case "\\": text += "\\\\"
            case "\"": text += "\\\""
            case "%": text += "%%"
            case "$": text += "$$"
            case "\n": text += "\\n"
            default: text.append(character)
            }
        }
        return "\"\(text)\""
    }

    /// Writes the unit for this executable and `arguments`; where it went.
    ///
    /// - Throws: the file system's error when the unit cannot be written.
    public static func install(arguments: [String]) throws -> URL {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let file = Self.unitFile
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(Self.unit(executable: executable, arguments: arguments).utf8).write(to: file, options: .atomic)
        return file
    }

    /// Removes the unit; whether there was one.
    ///
    /// - Throws: the file system's error when it cannot be removed.
    public static func uninstall() throws -> Bool {
        let file = Self.unitFile
        guard FileManager.default.fileExists(atPath: file.path) else { return false }
        try FileManager.default.removeItem(at: file)
        return true
    }
}
