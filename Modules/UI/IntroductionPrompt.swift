public import CastKit
public import Foundation

/// The introductory overlay the SDK shows once per user, the first time a
/// Cast button appears ("Choose a device to cast media to your TV…"): when to show it,
/// and remembering that it was shown, in the XDG state directory.
///
/// ```swift
/// let introduction = IntroductionPrompt(context: context)
/// for await show in introduction.updates() where show {
///     showHint(IntroductionPrompt.defaultText)
///     try introduction.markShown()
/// }
/// ```
public final class IntroductionPrompt: Sendable {
    /// The SDK's text for the overlay.
    public static let defaultText = "Choose a device to cast media to your TV and speakers"

    /// Where "shown" is remembered.
    public let flagFile: URL
    private let state: PublishedState<Bool>
    private let following = FollowingTask()

    /// Creates the prompt for `context`'s devices.
    ///
    /// - Parameters:
    ///   - context: whose devices that can run the app
    ///     (`CastContext.applicationDevices`) decide when a Cast
    ///     button first has a device to offer.
    ///   - flagFile: where "shown" is remembered; by default
    ///     `$XDG_STATE_HOME/<process name>/cast-introduction-shown`.
    public init(context: CastContext, flagFile: URL = XDGDirectory.state.file("cast-introduction-shown")) {
        self.flagFile = flagFile
        let state = PublishedState(false)
        self.state = state
        guard !FileManager.default.fileExists(atPath: flagFile.path) else { return }
        let devices = context.applicationDevices.updates()
        self.following.start {
            for await list in devices where !list.isEmpty {
                state.update { $0 = !FileManager.default.fileExists(atPath: flagFile.path) }
                return
            }
        }
    }

    /// Whether the overlay should show now: a device that can run the app
    /// was found and the overlay was never shown to this user.
    public var shouldShow: Bool { self.state.current }

    /// ``shouldShow`` now, then each change; each call gives a new, independent stream.
    public func updates() -> AsyncStream<Bool> {
        self.state.updates()
    }

    /// Records that the user saw the overlay: it will not show again, in this process or another.
    ///
    /// - Throws: the file system's error when the flag cannot be written.
    public func markShown() throws {
        self.following.cancel()
        try FileManager.default.createDirectory(
            at: self.flagFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data().write(to: self.flagFile, options: .atomic)
        self.state.update { $0 = false }
    }
}
