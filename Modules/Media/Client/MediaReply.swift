/// A message in the media namespace, decoded: what a media request resolves with.
enum MediaReply: Sendable {
    case status(MediaStatus?)
    case queueItemIDs([Int])
    case queueItems([MediaQueueItem])
    case failure(CastMediaError)
    case other(type: String)

    /// The status this reply carries, or the error it means.
    func status() throws(CastMediaError) -> MediaStatus? {
        switch self {
        case .status(let status): return status
        case .failure(let error): throw error
        case .queueItemIDs: throw CastMediaError(.requestFailed, "expected MEDIA_STATUS, got QUEUE_ITEM_IDS")
        case .queueItems: throw CastMediaError(.requestFailed, "expected MEDIA_STATUS, got QUEUE_ITEMS")
        case .other(let type): throw CastMediaError(.requestFailed, "expected MEDIA_STATUS, got \(type)")
        }
    }
}
