public import CastChannels
import Foundation

/// The media session's status as the sender knows it, kept from MEDIA_STATUS
/// messages (Docs/spec/castv2-control.md §4). Updates are partial: a
/// receiver leaves out `media` (and the queue's `items` and `queueData`)
/// when they did not change, so for the same media session those are kept
/// from the cache. Every other field is the update's own — its absence
/// means none (no `idleReason` while playing, no `breakStatus` outside a
/// break), so nothing stale lingers. A new `mediaSessionId` starts afresh;
/// an empty `status` array means there is no media session.
public struct MediaStatusCache: Sendable {
    private var fields: [String: JSONValue]?
    /// What a partial update leaves out when it did not change.
    private static let stickyKeys = ["media", "items", "queueData"]

    /// The merged status, or `nil` without a media session.
    public private(set) var status: MediaStatus?

    /// Creates an empty cache.
    public init() {}

    /// Applies a MEDIA_STATUS message (the whole message, with its `status` array).
    ///
    /// - Returns: the merged status, or `nil` when the receiver reports no media session.
    /// - Throws: `CastChannelError.Code.unexpectedReply` when the message has
    ///   no `status` array or its entry is not a media status; the cache is then unchanged.
    @discardableResult
    public mutating func apply(_ message: JSONValue) throws(CastChannelError) -> MediaStatus? {
        guard let entries = message["status"]?.arrayValue else {
            throw CastChannelError(.unexpectedReply, "MEDIA_STATUS without a status array")
        }
        guard let first = entries.first else {
            self.fields = nil
            self.status = nil
            return nil
        }
        guard let entry = first.objectValue else {
            throw CastChannelError(.unexpectedReply, "a MEDIA_STATUS entry is not an object")
        }
        var merged = entry
        if let cached = self.fields,
            entry["mediaSessionId"] == nil || entry["mediaSessionId"] == cached["mediaSessionId"]
        {
            for key in Self.stickyKeys where merged[key] == nil {
                merged[key] = cached[key]
            }
        }
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
}
