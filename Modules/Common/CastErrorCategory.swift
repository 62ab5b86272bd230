/// What kind of failure an error of the framework is: what an app tells the
/// person, offers to retry, or asks them to change. Every module's error
/// type reports one through ``CastCategorizedError``; `cast` turns each into
/// its exit code.
public enum CastErrorCategory: String, Sendable, Hashable, CaseIterable {
    /// The device asked for is not on the network, or its name is no address.
    case deviceNotFound
    /// The device could not be reached, refused the connection, or went away.
    case connectionFailed
    /// The receiver would not run the app, or the app could not be reached.
    case launchFailed
    /// The receiver could not play, or stopped playing, the media.
    case mediaFailed
    /// The receiver refused every stream a Cast Streaming offer proposed.
    case offerRejected
    /// A device or the receiver did not answer in time.
    case timedOut
    /// What the person named (a file, a setting, an address) cannot be used.
    case invalidInput
    /// This machine's picture or sound could not be recorded.
    case captureFailed
    /// Anything else.
    case other
}

/// An error that says what kind of failure it is, in one sentence for people.
///
/// The framework's error types conform, so an app can word every failure
/// the same way:
///
/// ```swift
/// catch let error as any CastCategorizedError {
///     show(error.userMessage, retry: error.category == .connectionFailed)
/// }
/// ```
public protocol CastCategorizedError: Error, CustomStringConvertible {
    /// The kind of failure.
    var category: CastErrorCategory { get }
    /// One sentence for people naming the cause, without the technical
    /// chain underneath, which `description` keeps for logs.
    var userMessage: String { get }
}
