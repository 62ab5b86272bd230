public import CastCommon

/// Why discovery could not start.
public struct DiscoveryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: Hashable, Sendable {
        /// ``DiscoveryManager/start()`` was called while discovery runs.
        case alreadyStarted
        /// No mDNS socket could be opened on any selected interface.
        case socketFailed
        /// A scan range larger than a /16 (``IPv4Network/shortestScannablePrefix``).
        case scanRangeTooLarge
        /// Text with an address's shape that is not a device address (``CastDeviceAddress``).
        case malformedAddress
        /// No device of the name asked for answered in time.
        case deviceNotFound
    }

    /// What went wrong.
    public let code: Code
    /// A description for logs and people.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public static func == (lhs: DiscoveryError, rhs: DiscoveryError) -> Bool {
        lhs.code == rhs.code
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(self.code)
    }

    /// `discovery error (socketFailed): …`.
    public var description: String {
        "discovery error (\(self.code)): \(self.message)"
    }
}

extension DiscoveryError: CastCategorizedError {
    /// `CastErrorCategory.deviceNotFound` for a name no device answered to
    /// or text that is no address; `CastErrorCategory.other` otherwise.
    public var category: CastErrorCategory {
        [.malformedAddress, .deviceNotFound].contains(self.code) ? .deviceNotFound : .other
    }

    /// The message.
    public var userMessage: String { self.message }
}
