/// A captured picture in the capture source's memory: 32-bit pixels, one
/// byte per channel, valid until the next capture.
struct CapturedImage {
    /// The byte order of each 32-bit pixel in memory.
    enum ChannelOrder {
        /// Blue, green, red, unused: X11's usual TrueColor (libyuv calls it `ARGB`).
        case bgrx
        /// Red, green, blue, unused (libyuv calls it `ABGR`).
        case rgbx
    }

    /// The first pixel; `nil` for an empty picture (a window off screen).
    let base: UnsafeMutableRawPointer?
    let width: Int
    let height: Int
    let bytesPerRow: Int
    let order: ChannelOrder
}
