// CastCapture mirrors the picture with the sound of CastSoundCapture: an app
// that imports CastCapture has both, as before the sound became its own product.
@_exported public import CastSoundCapture
