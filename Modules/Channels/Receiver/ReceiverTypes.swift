/// How to launch a receiver app: the SDK's `GCKLaunchOptions`.
public struct LaunchOptions: Sendable, Hashable {
    /// The language the app should use, a BCP 47 tag. Default `en-US`.
    public var language: String
    /// The app types this sender can drive. Default `["WEB"]`.
    public var supportedAppTypes: [String]
    /// Whether to launch again when the app already runs (a new receiver-app
    /// session); otherwise the running app is joined. Default `false`.
    public var relaunchIfRunning: Bool
    /// App parameters passed in LAUNCH (`appParams`), if any.
    public var appParameters: JSONValue?

    /// Creates launch options.
    public init(
        language: String = "en-US",
        supportedAppTypes: [String] = ["WEB"],
        relaunchIfRunning: Bool = false,
        appParameters: JSONValue? = nil
    ) {
        self.language = language
        self.supportedAppTypes = supportedAppTypes
        self.relaunchIfRunning = relaunchIfRunning
        self.appParameters = appParameters
    }
}

/// Why a receiver refused to launch an app (`reason` of LAUNCH_ERROR).
public enum LaunchErrorReason: Sendable, Hashable {
    /// The launch was cancelled (by the user, or a newer launch); worth one retry.
    case cancelled
    /// The request's parameters were wrong.
    case badParameter
    /// The receiver does not know the app id.
    case notFound
    /// The receiver failed; the error's message carries `extendedError` when sent.
    case systemError
    /// The receiver does not allow this sender to launch the app.
    case notAllowed
    /// A reason this implementation does not know, verbatim.
    case other(String)

    /// The reason for a LAUNCH_ERROR `reason` string.
    public init(rawValue: String) {
        switch rawValue {
        case "CANCELLED": self = .cancelled
        case "BAD_PARAMETER": self = .badParameter
        case "NOT_FOUND": self = .notFound
        case "SYSTEM_ERROR": self = .systemError
        case "NOT_ALLOWED": self = .notAllowed
        default: self = .other(rawValue)
        }
    }
}

/// Progress of a launch that needs the user (LAUNCH_STATUS).
public enum LaunchStatus: Sendable, Hashable {
    /// The receiver asks the user to allow the launch.
    case userPendingAuthorization
    /// The user allowed it; the app's status follows.
    case userAllowed
    /// A status this implementation does not know, verbatim.
    case other(String)

    init(rawValue: String) {
        switch rawValue {
        case "USER_PENDING_AUTHORIZATION": self = .userPendingAuthorization
        case "USER_ALLOWED": self = .userAllowed
        default: self = .other(rawValue)
        }
    }
}

/// Whether a receiver can run an app (GET_APP_AVAILABILITY).
public enum AppAvailability: Sendable, Hashable {
    /// The receiver can launch the app.
    case available
    /// The receiver cannot launch it.
    case unavailable
    /// The receiver did not say.
    case unknown
}

/// What a ``ReceiverChannel`` observes, from its own requests and from
/// other senders' changes alike.
public enum ReceiverEvent: Sendable, Hashable {
    /// The receiver status changed (apps started or stopped, volume, input).
    case statusChanged(ReceiverStatus)
    /// The device volume changed.
    case volumeChanged(ReceiverVolume)
    /// A pending launch reported progress.
    case launchStatusChanged(LaunchStatus)
}
