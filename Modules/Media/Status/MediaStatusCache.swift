public import CastChannels
import Foundation

/// The media session's status as the sender knows it, kept from MEDIA_STATUS
/// messages (Docs/spec/castv2-control.md §4).
///
/// Receivers send "only the changed attributes" (pychromecast
/// controllers/media.py:307-337 merges on that rule), so the merge is field
/// by field: for the same media session a field an update leaves out keeps
/// its cached value, and a field sent as `null` is cleared. Three fields
/// describe a passing condition and hold only while an update repeats them,
/// as pychromecast clears `idleReason` (media.py:323): `idleReason`,
/// `extendedStatus` (LOADING, conformance 040 → 041) and `breakStatus`
/// (present only during an ad break). A new `mediaSessionId` starts afresh;
/// an empty `status` array means there is no media session.
public struct MediaStatusCache: Sendable {
    private var fields: [String: JSONValue]?
    /// What holds only while the update that reports it.
    private static let passingKeys: Set<String> = ["idleReason", "extendedStatus", "breakStatus"]

    /// The merged status, or `nil` without a media session.
    public private(set) var status: MediaStatus?

    /// Creates an empty cache.
    public init() {}

    /// Applies a MEDIA_STATUS message: the whole message, with its `status`
    /// array, or — as some receiver apps send it (conformance 037) — with one
    /// status's fields at the top level.
    ///
    /// - Returns: the merged status, or `nil` when the receiver reports no media session.
    /// - Throws: `CastChannelError.Code.unexpectedReply` when the message
    ///   carries no status, its entry is not a media status, or a first
    ///   status has no `mediaSessionId`; the cache is then unchanged.
    @discardableResult
    public mutating func apply(_ message: JSONValue) throws(CastChannelError) -> MediaStatus? {
        let entry: [String: JSONValue]
        if let entries = message["status"]?.arrayValue {
            guard let first = entries.first else {
                self.fields = nil
                self.status = nil
                return nil
            }
            guard let object = first.objectValue else {
                throw CastChannelError(.unexpectedReply, "a MEDIA_STATUS entry is not an object")
            }
            entry = object
        } else if let object = message.objectValue, object["mediaSessionId"] != nil {
            entry = object.filter { $0.key != "type" && $0.key != "requestId" }
        } else {
            throw CastChannelError(.unexpectedReply, "MEDIA_STATUS without a status array")
        }
        let merged = Self.merge(entry, onto: self.fields)
        let status: MediaStatus
        do {
            let data = Data(try JSONValue.object(merged).jsonText().utf8)
            status = try JSONDecoder().decode(MediaStatus.self, from: data)
        } catch {
            throw CastChannelError(.unexpectedReply, "the MEDIA_STATUS entry is not a media status", cause: error)
        }
        self.fields = merged
        self.status = status
        return status
    }

    /// The entry laid over the cached fields of the same media session.
    private static func merge(_ entry: [String: JSONValue], onto cached: [String: JSONValue]?) -> [String: JSONValue] {
        guard let cached, entry["mediaSessionId"] == nil || entry["mediaSessionId"] == cached["mediaSessionId"]
        else {
            return entry.filter { $0.value != .null }
        }
        var merged = cached.filter { !Self.passingKeys.contains($0.key) }
        for (key, value) in entry {
            merged[key] = value == .null ? nil : value
        }
        return merged
    }
}
