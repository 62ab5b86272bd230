import CastStreaming

/// A session's video encoder over ``VideoEncoder``: each picture is fitted
/// into the receiver's letterbox and scaled to the size congestion
/// adaptation asks for (libyuv), then encoded; used by the session's
/// encoder thread alone.
final class FittingVideoEncoder: VideoFrameEncoding {
    /// A letterbox and the buffers it fills: the picture as I420 (for an
    /// NV12 one) and the whole frame, bars painted once.
    private struct Letterboxing {
        let letterbox: VideoLetterbox
        let picture: PixelStorage
        let frame: PixelStorage
    }

    private var video: VideoEncoder
    private var videoBitrate: Int
    private let letterboxing: Letterboxing?
    /// The size every frame is encoded at without adaptation.
    private let fullSize: RemoteDisplayConfiguration.Resolution
    /// A full-size I420 copy of NV12 input, for scaling; made when first needed.
    private var fullPicture: PixelStorage?
    /// The frame a lowered size is scaled into; replaced when the size changes.
    private var scaled: PixelStorage?

    init(configuration: RemoteDisplayConfiguration, letterbox: VideoLetterbox?) throws(CastRemoteDisplayError) {
        self.videoBitrate = configuration.maximumVideoBitrate
        let picture = configuration.resolution
        self.fullSize = letterbox?.frameSize ?? picture
        if let letterbox {
            let frame = PixelStorage(
                layout: try PixelLayout(
                    format: .i420, width: letterbox.frameSize.width, height: letterbox.frameSize.height))
            PictureConversion.fillBlack(frame)
            self.letterboxing = Letterboxing(
                letterbox: letterbox,
                picture: PixelStorage(
                    layout: try PixelLayout(format: .i420, width: picture.width, height: picture.height)),
                frame: frame)
        } else {
            self.letterboxing = nil
        }
        self.video = try VideoEncoder(
            configuration: VideoEncoderConfiguration(
                codec: configuration.videoCodec, width: self.fullSize.width, height: self.fullSize.height,
                frameRate: configuration.maximumFrameRate, bitrate: configuration.maximumVideoBitrate))
    }

    func encode(
        _ frame: consuming PixelBuffer, pts: HostTime, keyFrame: Bool, bitrate: Int?,
        size: RemoteDisplayConfiguration.Resolution?
    ) throws(CastRemoteDisplayError) -> EncodedFrame {
        if keyFrame { self.video.requestKeyFrame() }
        if let bitrate, bitrate != self.videoBitrate {
            try self.video.setBitrate(bitrate)
            self.videoBitrate = bitrate
        }
        let size = size ?? self.fullSize
        // A new size makes the next frame a key frame.
        try self.video.setResolution(width: size.width, height: size.height)
        if size == self.fullSize, self.letterboxing == nil {
            self.scaled = nil
            return try self.video.encode(frame, pts: pts)
        }
        let full = try self.fitted(frame)
        guard size != self.fullSize else {
            return try self.video.encode(PixelBuffer(storage: full, pool: nil), pts: pts)
        }
        let scaled = try self.scaledStorage(size)
        PictureConversion.scale(
            full, into: scaled, at: VideoLetterbox.Rectangle(x: 0, y: 0, width: size.width, height: size.height))
        return try self.video.encode(PixelBuffer(storage: scaled, pool: nil), pts: pts)
    }

    /// `frame` as I420 at the full size: inside its letterbox when there is
    /// one. libyuv scales I420 of any stride directly; NV12 is made I420 first.
    private func fitted(_ frame: borrowing PixelBuffer) throws(CastRemoteDisplayError) -> PixelStorage {
        let picture: PixelStorage
        if frame.format == .i420 {
            picture = frame.storage
        } else {
            let copy: PixelStorage
            if let letterboxing {
                copy = letterboxing.picture
            } else {
                copy = try self.fullPictureStorage(frame.width, frame.height)
            }
            PictureConversion.copy(frame, toI420: copy)
            picture = copy
        }
        guard let letterboxing else { return picture }
        PictureConversion.scale(picture, into: letterboxing.frame, at: letterboxing.letterbox.content)
        return letterboxing.frame
    }

    private func fullPictureStorage(_ width: Int, _ height: Int) throws(CastRemoteDisplayError) -> PixelStorage {
        if let storage = self.fullPicture { return storage }
        let storage = PixelStorage(layout: try PixelLayout(format: .i420, width: width, height: height))
        self.fullPicture = storage
        return storage
    }

    private func scaledStorage(_ size: RemoteDisplayConfiguration.Resolution) throws(CastRemoteDisplayError)
        -> PixelStorage
    {
        if let storage = self.scaled, storage.layout.width == size.width, storage.layout.height == size.height {
            return storage
        }
        let storage = PixelStorage(layout: try PixelLayout(format: .i420, width: size.width, height: size.height))
        self.scaled = storage
        return storage
    }
}
