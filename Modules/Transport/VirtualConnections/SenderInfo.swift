/// Who the sender is, as told to the receiver in every CONNECT
/// (`userAgent` and `senderInfo`, Docs/spec/castv2-control.md §3).
public struct SenderInfo: Sendable, Hashable {
    /// The `userAgent` string.
    public var userAgent: String
    /// The SDK version (`senderInfo.version`).
    public var version: String
    /// The operating system and machine (`senderInfo.systemVersion`), e.g. `Linux x86_64`.
    public var systemVersion: String

    /// Creates sender information.
    public init(
        userAgent: String = "swift-cast/\(Self.frameworkVersion) (Linux)",
        version: String = Self.frameworkVersion,
        systemVersion: String = Self.currentSystemVersion
    ) {
        self.userAgent = userAgent
        self.version = version
        self.systemVersion = systemVersion
    }

    /// This framework's version.
    public static let frameworkVersion = "0.1.0"

    /// The running system, as `uname -sm` prints it.
    public static var currentSystemVersion: String {
        #if arch(x86_64)
        "Linux x86_64"
        #elseif arch(arm64)
        "Linux aarch64"
        #else
        "Linux"
        #endif
    }
}
