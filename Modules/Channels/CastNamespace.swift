/// The namespaces of the Cast platform (Docs/spec/castv2-control.md §4).
/// App namespaces are any others that start with ``prefix``.
public enum CastNamespace {
    /// Every namespace starts with this.
    public static let prefix = "urn:x-cast:"
    /// Receiver control: launch, stop, volume, status (to `receiver-0`).
    public static let receiver = "urn:x-cast:com.google.cast.receiver"
    /// Media control (to an app's transport).
    public static let media = "urn:x-cast:com.google.cast.media"
    /// Speaker groups (to a group's `receiver-0`).
    public static let multizone = "urn:x-cast:com.google.cast.multizone"
    /// Cast Streaming OFFER / ANSWER (to the mirroring app's transport).
    public static let webrtc = "urn:x-cast:com.google.cast.webrtc"
    /// Cast Streaming remoting.
    public static let remoting = "urn:x-cast:com.google.cast.remoting"
}

/// Well-known receiver application ids.
public enum CastApplicationID {
    /// The Default Media Receiver, which plays media URLs through the media namespace.
    public static let defaultMediaReceiver = "CC1AD845"
    /// Screen mirroring: the Cast Streaming receiver Remote Display launches.
    public static let mirroring = "0F5096E8"
    /// Audio-only mirroring: the Cast Streaming receiver for sound to
    /// speakers (Chromium `kCastStreamingAudioAppId`; Open Screen's
    /// standalone receiver accepts it next to ``mirroring``).
    public static let audioMirroring = "85CDB22F"
    /// Backdrop, the idle screen.
    public static let backdrop = "E8C28D3C"
}
