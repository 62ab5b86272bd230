public import CastChannels

/// Queue commands (Docs/spec/castv2-control.md §4, Media: QUEUE_*).
extension RemoteMediaClient {
    /// Loads a queue (QUEUE_LOAD) and starts at `startIndex`. A newer load supersedes it.
    @discardableResult
    public func queueLoad(
        items: [MediaQueueItem], startIndex: Int = 0, repeatMode: RepeatMode = .off, currentTime: Double? = nil,
        customData: JSONValue? = nil
    ) async throws(CastMediaError) -> MediaStatus? {
        var payload: [String: JSONValue] = [
            "type": "QUEUE_LOAD", "items": try JSONValue(encoding: items), "startIndex": .integer(startIndex),
            "repeatMode": .string(repeatMode.rawValue),
        ]
        if let currentTime { payload["currentTime"] = .number(currentTime) }
        if let customData { payload["customData"] = customData }
        if let sessionID = self.applicationSessionID { payload["sessionId"] = .string(sessionID) }
        return try await self.send(payload, isLoad: true).status()
    }

    /// Inserts items before the item `insertBefore` (at the end when `nil`) (QUEUE_INSERT).
    @discardableResult
    public func queueInsert(_ items: [MediaQueueItem], before insertBefore: Int? = nil, customData: JSONValue? = nil)
        async throws(CastMediaError) -> MediaStatus?
    {
        var fields: [String: JSONValue] = ["items": try JSONValue(encoding: items)]
        if let insertBefore { fields["insertBefore"] = .integer(insertBefore) }
        return try await self.command("QUEUE_INSERT", fields, customData: customData)
    }

    /// Removes items (QUEUE_REMOVE).
    @discardableResult
    public func queueRemove(itemIDs: [Int], customData: JSONValue? = nil) async throws(CastMediaError) -> MediaStatus? {
        try await self.command(
            "QUEUE_REMOVE", ["itemIds": .array(itemIDs.map(JSONValue.integer))], customData: customData)
    }

    /// Moves items before the item `insertBefore` (to the end when `nil`) (QUEUE_REORDER).
    @discardableResult
    public func queueReorder(itemIDs: [Int], before insertBefore: Int? = nil, customData: JSONValue? = nil)
        async throws(CastMediaError) -> MediaStatus?
    {
        var fields: [String: JSONValue] = ["itemIds": .array(itemIDs.map(JSONValue.integer))]
        if let insertBefore { fields["insertBefore"] = .integer(insertBefore) }
        return try await self.command("QUEUE_REORDER", fields, customData: customData)
    }

    /// Replaces items' properties (QUEUE_UPDATE with `items`).
    @discardableResult
    public func queueUpdate(_ items: [MediaQueueItem], customData: JSONValue? = nil) async throws(CastMediaError)
        -> MediaStatus?
    {
        try await self.command("QUEUE_UPDATE", ["items": try JSONValue(encoding: items)], customData: customData)
    }

    /// Plays the next item (QUEUE_UPDATE `jump: 1`); needs queue next.
    @discardableResult
    public func queueNext(customData: JSONValue? = nil) async throws(CastMediaError) -> MediaStatus? {
        try await self.command("QUEUE_UPDATE", ["jump": 1], requiring: .queueNext, customData: customData)
    }

    /// Plays the previous item (QUEUE_UPDATE `jump: -1`); needs queue previous.
    @discardableResult
    public func queuePrevious(customData: JSONValue? = nil) async throws(CastMediaError) -> MediaStatus? {
        try await self.command("QUEUE_UPDATE", ["jump": -1], requiring: .queuePrevious, customData: customData)
    }

    /// Plays the item `itemID` (QUEUE_UPDATE `currentItemId`), optionally from `startTime`.
    @discardableResult
    public func queueJump(toItemID itemID: Int, startTime: Double? = nil, customData: JSONValue? = nil)
        async throws(CastMediaError) -> MediaStatus?
    {
        var fields: [String: JSONValue] = ["currentItemId": .integer(itemID)]
        if let startTime { fields["currentTime"] = .number(startTime) }
        return try await self.command("QUEUE_UPDATE", fields, customData: customData)
    }

    /// Sets how the queue repeats (QUEUE_UPDATE `repeatMode`); needs the matching repeat command.
    @discardableResult
    public func setRepeatMode(_ mode: RepeatMode, customData: JSONValue? = nil) async throws(CastMediaError)
        -> MediaStatus?
    {
        let requirement: SupportedMediaCommands =
            switch mode {
            case .single: .queueRepeatOne
            case .all, .allAndShuffle: .queueRepeatAll
            default: []
            }
        return try await self.command(
            "QUEUE_UPDATE", ["repeatMode": .string(mode.rawValue)], requiring: requirement, customData: customData)
    }

    /// Shuffles the queue (QUEUE_UPDATE `shuffle: true`); needs queue shuffle.
    @discardableResult
    public func queueShuffle(customData: JSONValue? = nil) async throws(CastMediaError) -> MediaStatus? {
        try await self.command("QUEUE_UPDATE", ["shuffle": true], requiring: .queueShuffle, customData: customData)
    }

    /// The queue's item ids in order (QUEUE_GET_ITEM_IDS → QUEUE_ITEM_IDS).
    public func queueItemIDs() async throws(CastMediaError) -> [Int] {
        guard let status = self.mediaStatus else {
            throw CastMediaError(.noMediaSession, "QUEUE_GET_ITEM_IDS needs a media session")
        }
        let reply = try await self.send(
            ["type": "QUEUE_GET_ITEM_IDS", "mediaSessionId": .integer(status.mediaSessionID)])
        guard case .queueItemIDs(let ids) = reply else {
            _ = try reply.status()
            throw CastMediaError(.requestFailed, "expected QUEUE_ITEM_IDS")
        }
        return ids
    }

    /// The items `itemIDs`, in full (QUEUE_GET_ITEMS → QUEUE_ITEMS).
    public func queueItems(ids itemIDs: [Int]) async throws(CastMediaError) -> [MediaQueueItem] {
        guard let status = self.mediaStatus else {
            throw CastMediaError(.noMediaSession, "QUEUE_GET_ITEMS needs a media session")
        }
        let reply = try await self.send([
            "type": "QUEUE_GET_ITEMS", "mediaSessionId": .integer(status.mediaSessionID),
            "itemIds": .array(itemIDs.map(JSONValue.integer)),
        ])
        guard case .queueItems(let items) = reply else {
            _ = try reply.status()
            throw CastMediaError(.requestFailed, "expected QUEUE_ITEMS")
        }
        return items
    }
}
