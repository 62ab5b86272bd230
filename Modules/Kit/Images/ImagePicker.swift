public import CastMedia

/// Where an image will be shown, for an ``ImagePicker`` to choose its size:
/// the SDK's `GCKMediaMetadataImageType`.
public enum ImageUsage: Sendable, Hashable {
    /// A small thumbnail in a mini controller or a device chooser.
    case controller
    /// The large artwork of an expanded controller.
    case background
}

/// The size, in pixels, a view shows an image at.
public struct ImageSize: Sendable, Hashable {
    /// The width in pixels.
    public var width: Int
    /// The height in pixels.
    public var height: Int

    /// Creates a size.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// What a view asks of an image: where it shows it and, when the app set one
/// (``CastOptions/imageSizes``), at what size — the SDK's `GCKUIImageHints`.
public struct ImageHints: Sendable, Hashable {
    /// Where the image is shown.
    public var usage: ImageUsage
    /// The size it is shown at, if known.
    public var size: ImageSize?

    /// Creates hints.
    public init(usage: ImageUsage, size: ImageSize? = nil) {
        self.usage = usage
        self.size = size
    }
}

/// Chooses which of the metadata's images a controller shows: the SDK's
/// `GCKUIImagePicker`. Give one to ``CastOptions/imagePicker`` to prefer,
/// say, the image closest to the view's size (``ClosestSizeImagePicker``),
/// in every controller of the context.
public protocol ImagePicker: Sendable {
    /// The image to show for `usage`, or `nil` for none.
    func image(from metadata: MediaMetadata, for usage: ImageUsage) -> MediaImage?

    /// The image to show for `hints`, or `nil` for none. By default, the
    /// image for the hints' usage; a picker that weighs sizes implements it.
    func image(from metadata: MediaMetadata, for hints: ImageHints) -> MediaImage?
}

extension ImagePicker {
    /// The image for `hints.usage`, whatever the size.
    public func image(from metadata: MediaMetadata, for hints: ImageHints) -> MediaImage? {
        self.image(from: metadata, for: hints.usage)
    }
}

/// Picks the image closest to the size a view asks for: the smallest image
/// that covers it on both sides, else the largest there is; images of
/// unknown size come last, and without a size the first image is taken.
public struct ClosestSizeImagePicker: ImagePicker {
    /// Creates the picker.
    public init() {}

    /// The metadata's first image: without a size, no image is closer than another.
    public func image(from metadata: MediaMetadata, for usage: ImageUsage) -> MediaImage? {
        metadata.images.first
    }

    /// The image closest to `hints.size` (see the type's description).
    public func image(from metadata: MediaMetadata, for hints: ImageHints) -> MediaImage? {
        guard let wanted = hints.size else { return metadata.images.first }
        let sized = metadata.images.compactMap { image -> (MediaImage, Int, Int)? in
            guard let width = image.width, let height = image.height else { return nil }
            return (image, width, height)
        }
        let covering = sized.filter { $0.1 >= wanted.width && $0.2 >= wanted.height }
        if let smallest = covering.min(by: { $0.1 * $0.2 < $1.1 * $1.2 }) { return smallest.0 }
        if let largest = sized.max(by: { $0.1 * $0.2 < $1.1 * $1.2 }) { return largest.0 }
        return metadata.images.first
    }
}

/// The default ``ImagePicker``: the first image, as the SDK's default picker chooses.
public struct FirstImagePicker: ImagePicker {
    /// Creates the picker.
    public init() {}

    /// The metadata's first image.
    public func image(from metadata: MediaMetadata, for usage: ImageUsage) -> MediaImage? {
        metadata.images.first
    }
}
