import CastChannels
public import Foundation

/// The desktop's answer to "which screen or window?", kept between runs:
/// the ScreenCast portal's restore token (``ScreenCapture/restoreToken``),
/// in a file only its owner reads, since it grants screen access. Given
/// back as ``ScreenCaptureConfiguration/restoreToken``, it lets the portal
/// skip its dialog (`persist_mode` 2, xdg-desktop-portal's ScreenCast
/// interface).
///
/// ```swift
/// let grant = PortalGrant.standard(application: "my-app")
/// let capture = ScreenCaptureConfiguration(source: .portal, restoreToken: grant.restoreToken)
/// // … once the capture started:
/// try grant.keep(mirror.capture.restoreToken)
/// ```
public struct PortalGrant: Sendable, Hashable {
    /// The file the token is kept in.
    public let fileURL: URL

    /// A grant kept in `fileURL`.
    public init(fileURL: URL) {
        self.fileURL = fileURL
    }

    /// The grant an application keeps in its XDG state directory:
    /// `$XDG_STATE_HOME/<application>/screencast-restore-token` (`~/.local/state` by default).
    public static func standard(application: String) -> PortalGrant {
        PortalGrant(fileURL: XDGDirectory.state.file("screencast-restore-token", application: application))
    }

    /// The token kept, if one was; a missing or empty file is none.
    public var restoreToken: String? {
        guard let data = try? Data(contentsOf: self.fileURL) else { return nil }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return token.isEmpty ? nil : token
    }

    /// Keeps `token` for the next run, readable by its owner alone; `nil` keeps what there is.
    ///
    /// - Throws: the file system's error when the directory or file cannot be written.
    public func keep(_ token: String?) throws {
        guard let token else { return }
        try FileManager.default.createDirectory(
            at: self.fileURL.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        try Data((token + "\n").utf8).write(to: self.fileURL, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: self.fileURL.path)
    }
}
