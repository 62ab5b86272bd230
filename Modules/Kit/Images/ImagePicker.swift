public import CastMedia

/// Where an image will be shown, for an ``ImagePicker`` to choose its size:
/// the SDK's `GCKMediaMetadataImageType`.
public enum ImageUsage: Sendable, Hashable {
    /// A small thumbnail in a mini controller or a device chooser.
    case controller
    /// The large artwork of an expanded controller.
    case background
}

/// Chooses which of the metadata's images a controller shows: the SDK's
/// `GCKUIImagePicker`. Give one to ``CastOptions/imagePicker`` to prefer,
/// say, the image closest to the view's size, in every controller of the
/// context.
public protocol ImagePicker: Sendable {
    /// The image to show for `usage`, or `nil` for none.
    func image(from metadata: MediaMetadata, for usage: ImageUsage) -> MediaImage?
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
