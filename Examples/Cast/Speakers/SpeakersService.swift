import CastKit
import Foundation

/// `cast speakers` as a systemd user service: the unit
/// `--install-service` writes to `$XDG_CONFIG_HOME/systemd/user/` (and
/// `--uninstall-service` removes), started with the user's session after
/// the sound server. It is `Type=notify`: the command says READY=1 once
/// its sinks can be made (``SystemdNotification``), SIGTERM stops it
/// cleanly, the sinks removed, and `systemctl --user reload` (SIGHUP) has
/// it read its settings file again. Its log goes to the journal.
enum SpeakersService {
    static let unitName = "cast-speakers.service"

    /// Where the unit goes.
    static var unitFile: URL {
        XDGDirectory.configuration.url().appendingPathComponent("systemd/user", isDirectory: true)
            .appendingPathComponent(Self.unitName)
    }

    /// The unit that runs `executable` with `arguments`.
    static func unit(executable: String, arguments: [String]) -> String {
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
    static func quoted(_ word: String) -> String {
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
    static func install(arguments: [String]) throws -> URL {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let file = Self.unitFile
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(Self.unit(executable: executable, arguments: arguments).utf8).write(to: file, options: .atomic)
        return file
    }

    /// Removes the unit; whether there was one.
    static func uninstall() throws -> Bool {
        let file = Self.unitFile
        guard FileManager.default.fileExists(atPath: file.path) else { return false }
        try FileManager.default.removeItem(at: file)
        return true
    }
}

/// Tells systemd how a `Type=notify` service is doing (sd_notify(3)'s
/// protocol): a datagram to `$NOTIFY_SOCKET`, a path or, after `@`, an
/// abstract socket. Without the variable (not run by systemd) it does nothing.
enum SystemdNotification {
    /// Sends `state`, e.g. `READY=1` or `STOPPING=1`; whether it was sent.
    @discardableResult
    static func send(_ state: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty else { return false }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { target in
            for (index, byte) in bytes.enumerated() { target[index] = byte }
        }
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                message.withUnsafeBytes { sendto(descriptor, $0.baseAddress, $0.count, 0, address, length) }
            }
        }
        return sent == message.count
    }
}
