/// A message in the receiver namespace, decoded: what a request resolves with.
enum ReceiverReply: Sendable {
    case status(ReceiverStatus)
    case launchError(reason: String?, extendedError: String?)
    case invalidRequest(reason: String?)
    case appAvailability([String: AppAvailability])
    case other(type: String)

    /// The status this reply carries, or the error it means.
    func status() throws(CastChannelError) -> ReceiverStatus {
        switch self {
        case .status(let status):
            return status
        case .launchError(let reason, let extendedError):
            var message = "the receiver could not launch the app"
            if let extendedError { message += ": \(extendedError)" }
            throw CastChannelError(.launchFailed, message, reason: reason)
        case .invalidRequest(let reason):
            throw CastChannelError(.invalidRequest, "the receiver rejected the request", reason: reason)
        case .appAvailability:
            throw CastChannelError(.unexpectedReply, "expected RECEIVER_STATUS, got GET_APP_AVAILABILITY")
        case .other(let type):
            throw CastChannelError(.unexpectedReply, "expected RECEIVER_STATUS, got \(type)")
        }
    }
}
