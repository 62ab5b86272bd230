public import CastChannels

extension MediaStatus {
    /// The status as MEDIA_STATUS carries it (its `Codable` wire shape), for
    /// an app to log, forward or store, and what `cast play --json` prints;
    /// `null` for a status holding a number JSON cannot write (infinity or
    /// NaN), which no receiver's status can.
    public var json: JSONValue {
        (try? JSONValue(encoding: self)) ?? .null
    }
}
