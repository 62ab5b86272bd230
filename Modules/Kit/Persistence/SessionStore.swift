public import Foundation

/// What a session store remembers: enough for a new process to find the
/// device and rejoin the receiver-app session (the SDK's crash scenario).
public struct SavedSession: Codable, Sendable, Hashable {
    /// The device's receiver id.
    public var deviceID: String
    /// The device's friendly name, for showing while resuming.
    public var deviceName: String
    /// The receiver app's id.
    public var applicationID: String
    /// The receiver-app session id to rejoin.
    public var sessionID: String
    /// The address last connected to, used when discovery does not know the device.
    public var host: String
    /// The port last connected to.
    public var port: Int

    /// Creates a record.
    public init(deviceID: String, deviceName: String, applicationID: String, sessionID: String, host: String, port: Int)
    {
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.applicationID = applicationID
        self.sessionID = sessionID
        self.host = host
        self.port = port
    }
}

/// Where the session manager remembers the current session; pluggable
/// (a file, the app's settings, a keychain). Calls come from the session
/// manager, one at a time.
public protocol SessionStore: Sendable {
    /// The remembered session, or `nil`.
    func load() throws -> SavedSession?
    /// Remembers `session`, replacing any other.
    func save(_ session: SavedSession) throws
    /// Forgets the remembered session.
    func clear() throws
}

/// A ``SessionStore`` in one JSON file, written atomically.
public struct FileSessionStore: SessionStore {
    /// The file.
    public let fileURL: URL

    /// Creates a store in `fileURL`; the file (and its folder) appears with the first save.
    public init(fileURL: URL) {
        self.fileURL = fileURL
    }

    /// The store a ``CastOptions`` uses by default:
    /// `$XDG_STATE_HOME/<process name>/cast-session.json`, so each app
    /// resumes its own session (a session saved for another receiver app is
    /// not resumed).
    public static var standard: FileSessionStore {
        FileSessionStore(fileURL: XDGDirectory.state.file("cast-session.json"))
    }

    /// Reads the file; `nil` if there is none.
    ///
    /// - Throws: a decoding error for a file that is not a saved session.
    public func load() throws -> SavedSession? {
        guard FileManager.default.fileExists(atPath: self.fileURL.path) else { return nil }
        return try JSONDecoder().decode(SavedSession.self, from: Data(contentsOf: self.fileURL))
    }

    /// Writes the file atomically, owner-only, making its folder if needed.
    public func save(_ session: SavedSession) throws {
        try FileManager.default.createDirectory(
            at: self.fileURL.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(session).write(to: self.fileURL, options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: self.fileURL.path)
    }

    /// Deletes the file, if present.
    public func clear() throws {
        guard FileManager.default.fileExists(atPath: self.fileURL.path) else { return }
        try FileManager.default.removeItem(at: self.fileURL)
    }
}
