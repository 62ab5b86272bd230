/// How eagerly discovery queries the network, as the SDK's scanner offers.
///
/// Both modes query with the RFC 6762 back-off — at start, after 1 s, then
/// doubling — and both hear every announcement. They differ in the cap.
public enum ScanMode: Hashable, Sendable {
    /// For while a device picker is open: switching to it queries at once and
    /// restarts the back-off; the interval stays short
    /// (``DiscoveryConfiguration/activeMaximumQueryInterval``).
    case active
    /// For the rest of the time: fewer packets, less battery; the interval
    /// grows long (``DiscoveryConfiguration/passiveMaximumQueryInterval``) and
    /// new devices show up mostly through their own announcements.
    case passive
}
