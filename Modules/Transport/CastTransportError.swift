public import CastCommon
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Every error CastTransport throws or reports: a stable ``Code``, a message
/// for people, and the underlying cause where there is one.
///
/// A connection that ends carries one of these as its reason
/// (``CastConnectionState/disconnected(_:)``), and every operation pending at
/// that moment fails with the same value.
public struct CastTransportError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, stable across releases; compare against the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's stable name.
        public var description: String { self.name }

        // MARK: Connecting

        /// `connect()` was called on a connection that was already started; make a new one.
        public static let alreadyStarted = Code("alreadyStarted")
        /// TCP connect plus TLS handshake took longer than the configured connect timeout.
        public static let connectTimedOut = Code("connectTimedOut")
        /// The TCP connection could not be made (refused, unreachable, bad address).
        public static let connectionFailed = Code("connectionFailed")
        /// The TLS handshake failed.
        public static let tlsHandshakeFailed = Code("tlsHandshakeFailed")

        // MARK: Sending

        /// The connection is not (or no longer) connected.
        public static let notConnected = Code("notConnected")
        /// Too many messages are waiting to be written (the SDK's "send buffer too full").
        public static let sendBufferFull = Code("sendBufferFull")
        /// An outgoing message is not valid: an empty namespace, source or destination id.
        public static let invalidMessage = Code("invalidMessage")
        /// An outgoing message serializes to more than 65536 bytes.
        public static let messageTooLarge = Code("messageTooLarge")

        // MARK: Connection lost (each closes the socket)

        /// The app closed the connection.
        public static let closed = Code("closed")
        /// The peer closed the socket.
        public static let closedByPeer = Code("closedByPeer")
        /// No message arrived within the heartbeat timeout.
        public static let heartbeatTimedOut = Code("heartbeatTimedOut")
        /// A frame's length prefix was over 65536.
        public static let frameTooLarge = Code("frameTooLarge")
        /// A frame's length prefix was 0.
        public static let emptyFrame = Code("emptyFrame")
        /// A frame's body is not a valid `CastMessage`.
        public static let malformedMessage = Code("malformedMessage")
        /// The socket failed (reset, I/O error); the cause says how.
        public static let networkError = Code("networkError")

        // MARK: Device authentication

        /// No device-auth reply arrived in time.
        public static let authenticationTimedOut = Code("authenticationTimedOut")
        /// The device answered the challenge with an `AuthError`.
        public static let authenticationRejected = Code("authenticationRejected")
        /// The device-auth reply is not a valid `DeviceAuthMessage` response.
        public static let malformedAuthResponse = Code("malformedAuthResponse")
        /// The reply's sender nonce is not the one sent.
        public static let nonceMismatch = Code("nonceMismatch")
        /// The reply uses a signature or hash algorithm this implementation does not verify.
        public static let unsupportedSignatureAlgorithm = Code("unsupportedSignatureAlgorithm")
        /// The signature over nonce and TLS certificate does not verify with the device certificate's key.
        public static let signatureInvalid = Code("signatureInvalid")
        /// The TLS layer presented no peer certificate, or one that does not parse.
        public static let peerCertificateInvalid = Code("peerCertificateInvalid")
        /// The receiver's TLS certificate is not valid yet.
        public static let peerCertificateNotYetValid = Code("peerCertificateNotYetValid")
        /// The receiver's TLS certificate has expired.
        public static let peerCertificateExpired = Code("peerCertificateExpired")
        /// The receiver's TLS certificate expires more than 4 days from now.
        public static let peerCertificateLifetimeTooLong = Code("peerCertificateLifetimeTooLong")
        /// The device certificate or an intermediate does not parse.
        public static let deviceCertificateInvalid = Code("deviceCertificateInvalid")
        /// The device certificate does not chain to a configured trust anchor.
        public static let untrustedCertificateChain = Code("untrustedCertificateChain")
        /// The device's certificate revocation list is absent, does not parse,
        /// or does not verify, and the policy requires one
        /// (``DeviceAuthenticationPolicy/requiresRevocationList``; Chrome's `ERROR_CRL_INVALID`).
        public static let revocationListInvalid = Code("revocationListInvalid")
        /// A certificate of the device's chain is revoked by the revocation list
        /// the device sent, or that list no longer applies (Chrome's `ERROR_CERT_REVOKED`).
        public static let certificateRevoked = Code("certificateRevoked")

        // MARK: Configuration

        /// A file of trust anchors cannot be read, holds no PEM certificate, or
        /// holds one that does not parse
        /// (``DeviceAuthenticationPolicy/certificates(inPEMFile:)``).
        public static let invalidCertificateFile = Code("invalidCertificateFile")
    }

    /// What went wrong.
    public var code: Code
    /// What went wrong, for people.
    public var message: String
    /// The error underneath, if any.
    public var cause: (any Error)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
    }

    /// One sentence for people: the message and, where the cause says it
    /// plainly, why — "cannot connect to 127.0.0.1:8009: connection refused" —
    /// without the cause's technical chain, which ``description`` keeps.
    public var summary: String {
        guard let reason = self.cause.flatMap(Self.plainReason) else { return self.message }
        return "\(self.message): \(reason)"
    }

    /// Why `error` happened, in a few words, when it is a socket error
    /// (the system's text for its errno, such as "connection refused") or a
    /// timeout; `nil` for others.
    static func plainReason(_ error: any Error) -> String? {
        switch error {
        case let error as NIOConnectionError:
            // Every address tried failed; the first failure speaks for all (one address, most often).
            return error.connectionErrors.lazy.compactMap { Self.plainReason($0.error) }.first
                ?? error.dnsAAAAError.flatMap(Self.plainReason) ?? error.dnsAError.flatMap(Self.plainReason)
        case let error as IOError:
            return String(cString: strerror(error.errnoCode)).lowercased()
        case ChannelError.connectTimeout:
            return "timed out"
        case let error as CastTransportError:
            return error.cause.flatMap(Self.plainReason)
        default:
            return nil
        }
    }

    /// A one-line description for logs.
    public var description: String {
        if let cause = self.cause {
            return "\(self.code): \(self.message) (\(cause))"
        }
        return "\(self.code): \(self.message)"
    }
}

extension CastTransportError: CastCategorizedError {
    /// `CastErrorCategory.timedOut` for a connection that was not made in
    /// time, `CastErrorCategory.connectionFailed` otherwise.
    public var category: CastErrorCategory { self.code == .connectTimedOut ? .timedOut : .connectionFailed }

    /// The ``summary``: "cannot connect to 127.0.0.1:8009: connection refused", not NIO's chain of attempts.
    public var userMessage: String { self.summary }
}
