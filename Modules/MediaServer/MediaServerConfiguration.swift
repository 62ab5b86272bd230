/// How a ``MediaServer`` listens.
public struct MediaServerConfiguration: Sendable, Hashable {
    /// The local address to bind; `nil` (the default): the address of the
    /// route toward the device, which is the one the device can reach.
    public var host: String?
    /// The port; 0 (the default) takes any free one.
    public var port: Int
    /// Connections served at once, 1…1024; past it new ones wait. Default 16
    /// (a receiver opens two or three per stream).
    public var maximumConnections: Int
    /// How long an idle connection stays open. Default 60 s.
    public var idleTimeout: Duration

    /// Creates a configuration.
    public init(host: String? = nil, port: Int = 0, maximumConnections: Int = 16, idleTimeout: Duration = .seconds(60))
    {
        self.host = host
        self.port = port
        self.maximumConnections = maximumConnections
        self.idleTimeout = idleTimeout
    }
}
