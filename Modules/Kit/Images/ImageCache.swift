public import Foundation

/// Where a controller's artwork comes from: the SDK's `GCKUIImageCache`.
/// Give one to ``CastOptions/imageCache`` (CastUI's `DiskImageCache` is the
/// bounded one on disk) and every media controller of the context shows
/// each picked image's local copy.
public protocol ImageCache: Sendable {
    /// A local file holding the image at `url`, fetched if it is not cached.
    func localFile(for url: URL) async throws(ImageCacheError) -> URL
}

/// Why an image could not be had.
public struct ImageCacheError: Error, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: Sendable, Hashable {
        /// Only `http` and `https` images are fetched.
        case unsupportedURL
        /// The server did not answer 200 in time, or the connection failed.
        case fetchFailed
        /// The image is larger than the cache takes.
        case tooLarge
        /// The cache directory cannot be written.
        case storageFailed
    }

    /// What went wrong.
    public var code: Code
    /// The details.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A one-line description.
    public var description: String { "\(self.code): \(self.message)" }
}
