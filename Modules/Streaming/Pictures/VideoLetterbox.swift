/// Where the app's picture sits in the frames a session sends, when the
/// receiver shows them at a fixed aspect ratio and does not scale them
/// itself (ANSWER `display.scaling: "sender"`, or no `"receiver"`): the
/// sender letterboxes, as Chrome's mirroring does when the receiver does
/// not opt in to scaling (Chromium openscreen_session_host.cc `SetConstraints`:
/// `SetSenderSideLetterboxingEnabled(!video.supports_scaling)`).
///
/// The app still draws at ``RemoteDisplayConfiguration/resolution``; the
/// session scales each picture into ``content`` of a ``frameSize`` frame
/// (libyuv) and sends black bars around it.
public struct VideoLetterbox: Sendable, Hashable {
    /// A rectangle in pixels, with even origin and size (4:2:0 chroma).
    public struct Rectangle: Sendable, Hashable {
        /// The left edge.
        public var x: Int
        /// The top edge.
        public var y: Int
        /// The width.
        public var width: Int
        /// The height.
        public var height: Int

        /// Creates a rectangle.
        public init(x: Int, y: Int, width: Int, height: Int) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }
    }

    /// The size of the frames encoded and sent: the display's aspect ratio.
    public var frameSize: RemoteDisplayConfiguration.Resolution
    /// Where the picture goes inside each frame; black elsewhere.
    public var content: Rectangle

    /// Creates a letterbox.
    public init(frameSize: RemoteDisplayConfiguration.Resolution, content: Rectangle) {
        self.frameSize = frameSize
        self.content = content
    }

    /// The letterbox that shows `picture` whole in frames of the aspect
    /// ratio `aspectWidth:aspectHeight`, no larger than `limit`; `nil` when
    /// the picture already has that aspect ratio (within 1 %).
    static func fitting(
        _ picture: RemoteDisplayConfiguration.Resolution, aspectWidth: Int, aspectHeight: Int,
        within limit: RemoteDisplayConfiguration.Resolution?
    ) -> VideoLetterbox? {
        guard aspectWidth > 0, aspectHeight > 0 else { return nil }
        let aspect = Double(aspectWidth) / Double(aspectHeight)
        let pictureAspect = Double(picture.width) / Double(picture.height)
        guard abs(aspect / pictureAspect - 1) > 0.01 else { return nil }
        // The smallest frame of the display's shape that holds the picture unscaled…
        var width = Double(picture.width)
        var height = Double(picture.height)
        if aspect > pictureAspect { width = height * aspect } else { height = width / aspect }
        // …shrunk to the limit if it is larger.
        if let limit {
            let shrink = min(Double(limit.width) / width, Double(limit.height) / height, 1)
            width *= shrink
            height *= shrink
        }
        let frame = RemoteDisplayConfiguration.Resolution(width: Self.even(width), height: Self.even(height))
        return VideoLetterbox(frameSize: frame, content: Self.content(fitting: picture, in: frame))
    }

    /// The largest rectangle of `picture`'s aspect ratio centred in
    /// `frame`, with even origin and size: where a picture goes, whole, in a
    /// frame of another shape (the rest is black bars).
    package static func content(
        fitting picture: RemoteDisplayConfiguration.Resolution, in frame: RemoteDisplayConfiguration.Resolution
    ) -> Rectangle {
        let scale = min(Double(frame.width) / Double(picture.width), Double(frame.height) / Double(picture.height))
        let contentWidth = min(Self.even(Double(picture.width) * scale), frame.width)
        let contentHeight = min(Self.even(Double(picture.height) * scale), frame.height)
        return Rectangle(
            x: (frame.width - contentWidth) / 2 & ~1, y: (frame.height - contentHeight) / 2 & ~1,
            width: contentWidth, height: contentHeight)
    }

    private static func even(_ value: Double) -> Int {
        max(Int(value.rounded()) & ~1, 2)
    }
}
