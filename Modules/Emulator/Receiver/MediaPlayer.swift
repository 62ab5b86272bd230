import CastChannels
import CastMedia

/// The Default Media Receiver's player as a value with no I/O and no clock
/// of its own: requests and ticks come with `now` (seconds on the emulator's
/// media clock). States IDLE → BUFFERING → PLAYING ⇄ PAUSED → IDLE with
/// FINISHED / CANCELLED / INTERRUPTED / ERROR; a queue with repeat modes;
/// tracks, text style, rate, stream volume; ad breaks whose clips play
/// before the content at the break's position (Docs/spec/castv2-control.md §4, Media).
struct MediaPlayer {
    /// What a request or tick did: replies for the requester, broadcasts for every sender of the app.
    struct Outcome {
        var replies: [JSONValue] = []
        var broadcasts: [JSONValue] = []
    }

    private struct Item {
        var itemID: Int
        var entry: [String: JSONValue]
        var media: JSONValue? { self.entry["media"] }
        var duration: Double? { self.media?["duration"]?.doubleValue }
    }

    private struct AdPlayback {
        var breakIndex: Int
        var clipIndex: Int
        var clipStartedAt: Double
    }

    /// The longest queue: inserts beyond it are refused (INVALID_PARAMS), so a sender cannot grow it without bound.
    static let queueLimit = 1000

    /// How close to an end counts as the end: media-clock sums carry rounding.
    private static let tolerance = 1e-6

    /// Content URLs whose LOAD or QUEUE_LOAD fails with LOAD_FAILED (detailed error 104, source not supported).
    var failingContentIDs: Set<String> = []
    /// Content URLs that stay BUFFERING (``EmulatorFaults/stallingContentIDs``).
    var stallingContentIDs: Set<String> = []
    /// Content URLs that end IDLE with ERROR after buffering (``EmulatorFaults/erroringContentIDs``).
    var erroringContentIDs: Set<String> = []

    private var mediaSessionID = 0
    private var nextMediaSessionID = 1
    private var items: [Item] = []
    private var currentIndex: Int?
    private var nextItemID = 1
    private var playerState = PlayerState.idle
    private var idleReason: IdleReason?
    private var position = 0.0
    private var anchor = 0.0
    private var rate = 1.0
    private var level = 1.0
    private var muted = false
    private var activeTrackIDs: [Int]?
    private var textTrackStyle: JSONValue?
    private var repeatMode = RepeatMode.off
    private var watchedBreaks: Set<String> = []
    private var ad: AdPlayback?
    private var autoplayAfterBuffering = true
    /// How many times an item started playing: a repeated item is a change too.
    private var plays = 0
    /// The media clock's time at the last request or tick.
    private var now = 0.0
    /// The full status entry the last broadcast described, for the next
    /// broadcast to carry only what changed.
    private var broadcastBaseline: [String: JSONValue]?

    // MARK: Requests

    /// Applies one media-namespace request at `now`. Replies carry the full
    /// status; broadcasts only what changed since the last broadcast.
    mutating func handle(_ request: JSONValue, now: Double) -> Outcome {
        var outcome = self.respond(to: request, now: now)
        outcome.broadcasts = outcome.broadcasts.map { self.partial($0) }
        return outcome
    }

    private mutating func respond(to request: JSONValue, now: Double) -> Outcome {
        self.advance(to: now)
        let requestID = request["requestId"]?.intValue ?? 0
        let type = request["type"]?.stringValue ?? ""
        switch type {
        case "LOAD":
            return self.load(request, requestID: requestID, now: now)
        case "QUEUE_LOAD":
            return self.queueLoad(request, requestID: requestID, now: now)
        case "GET_STATUS":
            return Outcome(replies: [self.statusMessage(requestID: requestID, includingMedia: true)])
        default:
            break
        }
        guard self.mediaSessionID != 0 else {
            return Outcome(replies: [["type": "INVALID_PLAYER_STATE", "requestId": .integer(requestID)]])
        }
        guard request["mediaSessionId"]?.intValue == self.mediaSessionID else {
            return Outcome(replies: [Self.invalidRequest(requestID, "INVALID_MEDIA_SESSION_ID")])
        }
        return self.respondInSession(type, request, requestID: requestID, now: now)
    }

    /// Applies a request of `type` addressed to the current media session. Answers with the status
    /// unless the request has an answer of its own or is refused.
    private mutating func respondInSession(_ type: String, _ request: JSONValue, requestID: Int, now: Double)
        -> Outcome
    {
        var includeMedia = false
        switch type {
        case "PLAY":
            guard self.playerState != .idle else { return Self.invalidState(requestID) }
            self.setState(.playing, now: now)
        case "PAUSE":
            guard self.playerState != .idle else { return Self.invalidState(requestID) }
            self.setState(.paused, now: now)
        case "STOP":
            self.endSession(reason: .cancelled)
        case "SEEK":
            if let failure = self.seek(request, requestID: requestID, now: now) { return failure }
        case "SET_VOLUME":
            if let level = request["volume"]?["level"]?.doubleValue { self.level = min(max(level, 0), 1) }
            if let muted = request["volume"]?["muted"]?.boolValue { self.muted = muted }
        case "EDIT_TRACKS_INFO":
            if let ids = request["activeTrackIds"]?.arrayValue { self.activeTrackIDs = ids.compactMap(\.intValue) }
            if let style = request["textTrackStyle"] {
                self.textTrackStyle = style
                includeMedia = true
            }
        case "SET_PLAYBACK_RATE":
            if let failure = self.setPlaybackRate(request, requestID: requestID, now: now) { return failure }
        case "SKIP_AD":
            if let failure = self.skipAd(requestID: requestID, now: now) { return failure }
        case "QUEUE_UPDATE":
            if let failure = self.queueUpdate(request, requestID: requestID, now: now) { return failure }
            includeMedia = true
        case "QUEUE_INSERT":
            return self.queueInsert(request, requestID: requestID)
        case "QUEUE_REMOVE":
            return self.queueRemove(request, requestID: requestID, now: now)
        case "QUEUE_REORDER":
            return self.queueReorder(request, requestID: requestID)
        case "QUEUE_GET_ITEM_IDS":
            return self.queueItemIDs(requestID: requestID)
        case "QUEUE_GET_ITEMS":
            return self.queueItems(request, requestID: requestID)
        default:
            return Outcome(replies: [Self.invalidRequest(requestID, "INVALID_COMMAND")])
        }
        return Outcome(
            replies: [self.statusMessage(requestID: requestID, includingMedia: includeMedia)],
            broadcasts: [self.statusMessage(requestID: 0, includingMedia: includeMedia)])
    }

    /// SEEK: moves to `currentTime`, or by `relativeTime`, within the item, then applies `resumeState`.
    /// Returns the refusal when nothing plays or an ad break does.
    private mutating func seek(_ request: JSONValue, requestID: Int, now: Double) -> Outcome? {
        guard self.playerState != .idle, self.ad == nil else { return Self.invalidState(requestID) }
        if let time = request["currentTime"]?.doubleValue {
            self.position = time
        } else if let delta = request["relativeTime"]?.doubleValue {
            self.position += delta
        }
        self.position = max(0, min(self.position, self.currentDuration ?? .infinity))
        self.anchor = now
        switch request["resumeState"]?.stringValue {
        case "PLAYBACK_START": self.setState(.playing, now: now)
        case "PLAYBACK_PAUSE": self.setState(.paused, now: now)
        default: break
        }
        return nil
    }

    /// SET_PLAYBACK_RATE: plays on at `playbackRate` from where the content is now.
    /// Returns the refusal when the rate is not above 0 and at most 8.
    private mutating func setPlaybackRate(_ request: JSONValue, requestID: Int, now: Double) -> Outcome? {
        guard let rate = request["playbackRate"]?.doubleValue, rate > 0, rate <= 8 else {
            return Outcome(replies: [Self.invalidRequest(requestID, "INVALID_PARAMS")])
        }
        self.position = self.contentPosition(at: now)
        self.anchor = now
        self.rate = rate
        return nil
    }

    /// SKIP_AD: moves on to the next clip. Returns the refusal when no clip plays or it is not skippable yet.
    private mutating func skipAd(requestID: Int, now: Double) -> Outcome? {
        guard let ad = self.ad, let clip = self.clip(of: ad), let skippable = clip["whenSkippable"]?.doubleValue,
            now - ad.clipStartedAt >= skippable - Self.tolerance
        else { return Self.invalidState(requestID) }
        self.nextClip(now: now)
        return nil
    }

    /// QUEUE_INSERT: inserts the request's items, refused beyond ``queueLimit``; answers with a QUEUE_CHANGE.
    private mutating func queueInsert(_ request: JSONValue, requestID: Int) -> Outcome {
        guard self.items.count + (request["items"]?.arrayValue?.count ?? 0) <= Self.queueLimit else {
            return Outcome(replies: [Self.invalidRequest(requestID, "INVALID_PARAMS")])
        }
        let inserted = self.insert(request["items"]?.arrayValue ?? [], before: request["insertBefore"]?.intValue)
        return self.reply(
            requestID, queueChange: ["changeType": "INSERT", "itemIds": .array(inserted.map(JSONValue.integer))])
    }

    /// QUEUE_REMOVE: removes the items `itemIds` names; answers with a QUEUE_CHANGE.
    private mutating func queueRemove(_ request: JSONValue, requestID: Int, now: Double) -> Outcome {
        let ids = request["itemIds"]?.arrayValue?.compactMap(\.intValue) ?? []
        self.remove(ids, now: now)
        return self.reply(
            requestID, queueChange: ["changeType": "REMOVE", "itemIds": .array(ids.map(JSONValue.integer))])
    }

    /// QUEUE_REORDER: moves the items `itemIds` names before `insertBefore`; answers with a QUEUE_CHANGE.
    private mutating func queueReorder(_ request: JSONValue, requestID: Int) -> Outcome {
        let ids = request["itemIds"]?.arrayValue?.compactMap(\.intValue) ?? []
        self.reorder(ids, before: request["insertBefore"]?.intValue)
        return self.reply(
            requestID, queueChange: ["changeType": "UPDATE", "itemIds": .array(ids.map(JSONValue.integer))])
    }

    /// QUEUE_GET_ITEM_IDS: the ids of the queue's items, in order.
    private func queueItemIDs(requestID: Int) -> Outcome {
        Outcome(replies: [
            [
                "type": "QUEUE_ITEM_IDS", "requestId": .integer(requestID),
                "itemIds": .array(self.items.map { .integer($0.itemID) }),
            ]
        ])
    }

    /// QUEUE_GET_ITEMS: the entries of the queue's items that `itemIds` names.
    private func queueItems(_ request: JSONValue, requestID: Int) -> Outcome {
        let wanted = Set(request["itemIds"]?.arrayValue?.compactMap(\.intValue) ?? [])
        let entries = self.items.filter { wanted.contains($0.itemID) }.map { JSONValue.object($0.entry) }
        return Outcome(replies: [
            ["type": "QUEUE_ITEMS", "requestId": .integer(requestID), "items": .array(entries)]
        ])
    }

    /// Moves time on to `now`: buffering ends, clips and items finish. Returns the broadcasts, if anything changed.
    mutating func tick(now: Double) -> [JSONValue] {
        let before = self.snapshot
        self.advance(to: now)
        return self.snapshot == before
            ? [] : [self.partial(self.statusMessage(requestID: 0, includingMedia: before.itemID != self.currentItemID))]
    }

    /// A broadcast MEDIA_STATUS cut down to what changed since the last one,
    /// as receivers send them: "only the changed attributes" (pychromecast
    /// controllers/media.py:307-337); conformance 038 and 041 are such
    /// updates (no `media`, no `activeTrackIds`, no `repeatMode`). The media
    /// session id always goes; a field that went away goes as `null`, but
    /// `idleReason` and `breakStatus`, which hold only while sent, simply stop.
    private mutating func partial(_ message: JSONValue) -> JSONValue {
        guard message["type"] == "MEDIA_STATUS", let entry = message["status"]?.arrayValue?.first?.objectValue else {
            if message["type"] == "MEDIA_STATUS" { self.broadcastBaseline = nil }
            return message
        }
        let baseline = self.broadcastBaseline
        var full = entry
        for key in ["media", "items"] where full[key] == nil {
            full[key] = baseline?[key]
        }
        self.broadcastBaseline = full
        guard let baseline, baseline["mediaSessionId"] == entry["mediaSessionId"] else { return message }
        var changed: [String: JSONValue] = ["mediaSessionId": entry["mediaSessionId"] ?? .null]
        for (key, value) in entry where baseline[key] != value {
            changed[key] = value
        }
        for key in baseline.keys where full[key] == nil && !["idleReason", "breakStatus"].contains(key) {
            changed[key] = .null
        }
        var partial = message.objectValue ?? [:]
        partial["status"] = [.object(changed)]
        return .object(partial)
    }

    // MARK: Loading

    private mutating func load(_ request: JSONValue, requestID: Int, now: Double) -> Outcome {
        guard let media = request["media"], media.objectValue != nil else {
            return Outcome(replies: [Self.invalidRequest(requestID, "INVALID_PARAMS")])
        }
        if self.fails(media) {
            return self.loadFailed(requestID: requestID)
        }
        var entry: [String: JSONValue] = ["media": media, "autoplay": request["autoplay"] ?? true]
        if let ids = request["activeTrackIds"] { entry["activeTrackIds"] = ids }
        return self.start(
            [entry], startIndex: 0, at: request["currentTime"]?.doubleValue ?? 0, requestID: requestID,
            rate: request["playbackRate"]?.doubleValue.flatMap { $0 > 0 && $0 <= 8 ? $0 : nil } ?? 1, now: now)
    }

    private mutating func queueLoad(_ request: JSONValue, requestID: Int, now: Double) -> Outcome {
        let entries = (request["items"]?.arrayValue ?? []).compactMap(\.objectValue)
        guard !entries.isEmpty, entries.count <= Self.queueLimit else {
            return Outcome(replies: [Self.invalidRequest(requestID, "INVALID_PARAMS")])
        }
        let startIndex = min(max(request["startIndex"]?.intValue ?? 0, 0), entries.count - 1)
        // The first item to play failing fails the QUEUE_LOAD (conformance 056: LOAD_FAILED 104 answering one).
        if let media = entries[startIndex]["media"], self.fails(media) {
            return self.loadFailed(requestID: requestID)
        }
        self.repeatMode = request["repeatMode"]?.stringValue.map(RepeatMode.init(rawValue:)) ?? .off
        return self.start(
            entries, startIndex: startIndex, at: request["currentTime"]?.doubleValue, requestID: requestID, rate: 1,
            now: now)
    }

    /// The URL a `media` object names: `contentUrl`, else `contentId`.
    static func contentID(of media: JSONValue) -> String {
        media["contentUrl"]?.stringValue ?? media["contentId"]?.stringValue ?? ""
    }

    /// Whether the fault fails `media`'s LOAD: its content ends with one of
    /// ``failingContentIDs``, as the other faults match.
    private func fails(_ media: JSONValue) -> Bool {
        let content = Self.contentID(of: media)
        return self.failingContentIDs.contains(where: content.hasSuffix)
    }

    /// LOAD_FAILED with MEDIA_SRC_NOT_SUPPORTED (104), the session ended with ERROR.
    private mutating func loadFailed(requestID: Int) -> Outcome {
        self.endSession(reason: .error)
        return Outcome(
            replies: [["type": "LOAD_FAILED", "requestId": .integer(requestID), "detailedErrorCode": 104]],
            broadcasts: [self.statusMessage(requestID: 0, includingMedia: false)])
    }

    /// What plays now — its URL, duration and position at `now` — for
    /// fetching the part a seek lands in; `nil` when nothing plays.
    func playing(at now: Double) -> (contentID: String, duration: Double?, position: Double)? {
        guard self.playerState != .idle, let media = self.currentItem?.media else { return nil }
        return (Self.contentID(of: media), self.currentDuration, self.contentPosition(at: now))
    }

    /// The content URL (`trackContentId`) and language of the active audio
    /// track of what plays, among its LOAD's tracks; `nil` without one.
    func activeSoundTrack() -> (contentID: String, language: String?)? {
        guard let active = self.activeTrackIDs, let tracks = self.currentItem?.media?["tracks"]?.arrayValue else {
            return nil
        }
        for track in tracks where track["type"]?.stringValue == "AUDIO" {
            guard let id = track["trackId"]?.intValue, active.contains(id) else { continue }
            return (track["trackContentId"]?.stringValue ?? "", track["language"]?.stringValue)
        }
        return nil
    }

    private mutating func start(
        _ entries: [[String: JSONValue]], startIndex: Int, at time: Double?, requestID: Int, rate: Double, now: Double
    ) -> Outcome {
        // A session that was still going ends INTERRUPTED before the new one starts.
        var interrupted: [JSONValue] = []
        if self.mediaSessionID != 0, self.playerState != .idle {
            self.endSession(reason: .interrupted)
            interrupted = [self.statusMessage(requestID: 0, includingMedia: false)]
        }
        self.mediaSessionID = self.nextMediaSessionID
        self.nextMediaSessionID += 1
        self.items = []
        self.currentIndex = nil
        self.ad = nil
        self.watchedBreaks = []
        self.textTrackStyle = nil
        self.rate = rate
        _ = self.insert(entries.map(JSONValue.object), before: nil)
        self.play(index: startIndex, from: time, now: now)
        return Outcome(
            replies: interrupted + [self.statusMessage(requestID: requestID, includingMedia: true)],
            broadcasts: interrupted + [self.statusMessage(requestID: 0, includingMedia: true)])
    }

    /// Starts item `index` from `time` (its start time when `nil`), buffering first.
    private mutating func play(index: Int, from time: Double?, now: Double) {
        guard self.items.indices.contains(index) else { return }
        self.plays += 1
        self.currentIndex = index
        let entry = self.items[index].entry
        self.position = time ?? entry["startTime"]?.doubleValue ?? 0
        self.activeTrackIDs = entry["activeTrackIds"]?.arrayValue?.compactMap(\.intValue)
        self.ad = nil
        self.idleReason = nil
        self.playerState = .buffering
        self.anchor = now
        self.autoplayAfterBuffering = entry["autoplay"]?.boolValue ?? true
    }

    // MARK: Time

    private mutating func advance(to now: Double) {
        self.now = max(self.now, now)
        // Bounded: each step ends a clip, a buffering or an item.
        for _ in 0..<64 {
            guard self.step(now: now) else { return }
        }
    }

    /// One transition due by `now`, if any.
    private mutating func step(now: Double) -> Bool {
        guard self.mediaSessionID != 0, self.currentIndex != nil else { return false }
        switch self.playerState {
        case .buffering:
            // Buffering takes no time on the media clock: the next tick plays.
            guard now > self.anchor else { return false }
            let content = self.currentIndex.flatMap { self.items[$0].entry["media"] }.map(Self.contentID(of:)) ?? ""
            if self.stallingContentIDs.contains(where: content.hasSuffix) { return false }
            if self.erroringContentIDs.contains(where: content.hasSuffix) {
                self.endSession(reason: .error)
                return true
            }
            self.playerState = self.autoplayAfterBuffering ? .playing : .paused
            self.anchor = now
            self.startDueBreak(now: now)
            return true
        case .playing:
            if let ad = self.ad, let clip = self.clip(of: ad) {
                let length = clip["duration"]?.doubleValue ?? 0
                guard now - ad.clipStartedAt >= length - Self.tolerance else { return false }
                self.nextClip(now: ad.clipStartedAt + length)
                return true
            }
            let position = self.contentPosition(at: now)
            if let due = self.dueBreak(upTo: position) {
                self.position = due.position
                self.anchor = now
                self.ad = AdPlayback(breakIndex: due.index, clipIndex: 0, clipStartedAt: now)
                return true
            }
            guard let duration = self.currentDuration, duration > 0, position >= duration - Self.tolerance else {
                return false
            }
            let finishedAt = self.anchor + (duration - self.position) / self.rate
            self.itemFinished(at: finishedAt)
            return true
        default:
            return false
        }
    }

    private func contentPosition(at now: Double) -> Double {
        guard self.playerState == .playing, self.ad == nil else { return self.position }
        return self.position + (now - self.anchor) * self.rate
    }

    /// The item playing, if the index is valid (queue edits move it).
    private var currentItem: Item? {
        guard let index = self.currentIndex, self.items.indices.contains(index) else { return nil }
        return self.items[index]
    }

    private var currentDuration: Double? {
        self.currentItem?.duration
    }

    private var currentItemID: Int? {
        self.currentItem?.itemID
    }

    private mutating func setState(_ state: PlayerState, now: Double) {
        self.position = self.contentPosition(at: now)
        self.anchor = now
        if self.playerState != .buffering {
            self.playerState = state
        } else {
            self.autoplayAfterBuffering = state == .playing
        }
    }

    /// The current item played to its end: the next one by the repeat mode, or IDLE FINISHED.
    private mutating func itemFinished(at time: Double) {
        guard let index = self.currentIndex, self.items.indices.contains(index) else { return }
        switch self.repeatMode {
        case .single:
            self.play(index: index, from: nil, now: time)
        case .all, .allAndShuffle:
            self.play(index: (index + 1) % self.items.count, from: nil, now: time)
        default:
            if index + 1 < self.items.count {
                self.play(index: index + 1, from: nil, now: time)
            } else {
                self.position = self.currentDuration ?? self.position
                self.playerState = .idle
                self.idleReason = .finished
            }
        }
    }

    private mutating func endSession(reason: IdleReason) {
        self.playerState = .idle
        self.idleReason = reason
        self.ad = nil
    }

    // MARK: Ad breaks

    private var breaks: [JSONValue] {
        self.currentItem?.media?["breaks"]?.arrayValue ?? []
    }

    private func dueBreak(upTo position: Double) -> (index: Int, position: Double)? {
        for (index, adBreak) in self.breaks.enumerated() {
            guard let id = adBreak["id"]?.stringValue, !self.watchedBreaks.contains(id),
                let at = adBreak["position"]?.doubleValue, at >= 0, at <= position
            else { continue }
            return (index, at)
        }
        return nil
    }

    private mutating func startDueBreak(now: Double) {
        if let due = self.dueBreak(upTo: self.position) {
            self.ad = AdPlayback(breakIndex: due.index, clipIndex: 0, clipStartedAt: now)
        }
    }

    private func clip(of ad: AdPlayback) -> JSONValue? {
        guard ad.breakIndex < self.breaks.count,
            let ids = self.breaks[ad.breakIndex]["breakClipIds"]?.arrayValue, ad.clipIndex < ids.count
        else { return nil }
        let clips = self.currentItem?.media?["breakClips"]?.arrayValue ?? []
        return clips.first { $0["id"] == ids[ad.clipIndex] }
    }

    /// The clip ended or was skipped: the next clip, or back to the content with the break watched.
    private mutating func nextClip(now: Double) {
        guard var ad = self.ad else { return }
        ad.clipIndex += 1
        ad.clipStartedAt = now
        if self.clip(of: ad) != nil {
            self.ad = ad
            return
        }
        if self.breaks.indices.contains(ad.breakIndex), let id = self.breaks[ad.breakIndex]["id"]?.stringValue {
            self.watchedBreaks.insert(id)
        }
        self.ad = nil
        self.anchor = now
    }

    // MARK: Queue

    private mutating func queueUpdate(_ request: JSONValue, requestID: Int, now: Double) -> Outcome? {
        if let mode = request["repeatMode"]?.stringValue { self.repeatMode = RepeatMode(rawValue: mode) }
        if request["shuffle"]?.boolValue == true, let current = self.currentIndex, self.items.indices.contains(current)
        {
            let playing = self.items[current]
            var rest = self.items
            rest.remove(at: current)
            rest.reverse()
            self.items = [playing] + rest
            self.currentIndex = 0
        }
        if let jump = request["jump"]?.intValue, let index = self.currentIndex, !self.items.isEmpty {
            var target = index + max(-self.items.count, min(jump, self.items.count))
            if target < 0 || target >= self.items.count {
                guard self.repeatMode == .all || self.repeatMode == .allAndShuffle else {
                    return Outcome(replies: [Self.invalidRequest(requestID, "END_OF_QUEUE")])
                }
                target = (target + self.items.count) % self.items.count
            }
            self.play(index: target, from: nil, now: now)
        }
        if let itemID = request["currentItemId"]?.intValue {
            guard let index = self.items.firstIndex(where: { $0.itemID == itemID }) else {
                return Outcome(replies: [Self.invalidRequest(requestID, "INVALID_PARAMS")])
            }
            self.play(index: index, from: request["currentTime"]?.doubleValue, now: now)
        }
        for update in (request["items"]?.arrayValue ?? []).compactMap(\.objectValue) {
            guard let id = update["itemId"]?.intValue, let index = self.items.firstIndex(where: { $0.itemID == id })
            else { continue }
            self.items[index].entry.merge(update) { _, new in new }
        }
        return nil
    }

    /// Inserts entries before the item `insertBefore` (at the end when `nil` or unknown); returns their ids.
    private mutating func insert(_ entries: [JSONValue], before insertBefore: Int?) -> [Int] {
        let current = self.currentItemID
        var position = insertBefore.flatMap { id in self.items.firstIndex { $0.itemID == id } } ?? self.items.count
        var ids: [Int] = []
        for case .object(var entry) in entries {
            let id = self.nextItemID
            self.nextItemID += 1
            entry["itemId"] = .integer(id)
            self.items.insert(Item(itemID: id, entry: entry), at: position)
            position += 1
            ids.append(id)
        }
        self.currentIndex = current.flatMap { id in self.items.firstIndex { $0.itemID == id } } ?? self.currentIndex
        return ids
    }

    private mutating func remove(_ ids: [Int], now: Double) {
        let current = self.currentItemID
        let currentIndex = self.currentIndex ?? 0
        self.items.removeAll { ids.contains($0.itemID) }
        if let current, ids.contains(current) {
            if self.items.isEmpty {
                self.currentIndex = nil
                self.endSession(reason: .interrupted)
            } else {
                self.play(index: min(currentIndex, self.items.count - 1), from: nil, now: now)
            }
        } else {
            self.currentIndex = current.flatMap { id in self.items.firstIndex { $0.itemID == id } }
        }
    }

    private mutating func reorder(_ ids: [Int], before insertBefore: Int?) {
        let current = self.currentItemID
        let moving = ids.compactMap { id in self.items.first { $0.itemID == id } }
        self.items.removeAll { ids.contains($0.itemID) }
        let position = insertBefore.flatMap { id in self.items.firstIndex { $0.itemID == id } } ?? self.items.count
        self.items.insert(contentsOf: moving, at: position)
        self.currentIndex = current.flatMap { id in self.items.firstIndex { $0.itemID == id } }
    }

    private mutating func reply(_ requestID: Int, queueChange: [String: JSONValue]) -> Outcome {
        var change = queueChange
        change["type"] = "QUEUE_CHANGE"
        change["requestId"] = 0
        // QUEUE_CHANGE goes to every sender of the app, the requester too.
        return Outcome(
            replies: [.object(change), self.statusMessage(requestID: requestID, includingMedia: false)],
            broadcasts: [.object(change), self.statusMessage(requestID: 0, includingMedia: false)])
    }

    // MARK: Status

    private struct Snapshot: Equatable {
        var state: PlayerState
        var plays: Int
        var itemID: Int?
        var clip: Int?
        var breakIndex: Int?
    }

    private var snapshot: Snapshot {
        Snapshot(
            state: self.playerState, plays: self.plays, itemID: self.currentItemID, clip: self.ad?.clipIndex,
            breakIndex: self.ad?.breakIndex)
    }

    /// The commands the current media accepts.
    private var supportedCommands: Int {
        guard self.mediaSessionID != 0 else { return 0 }
        var bits = 1 | 2 | 4 | 8 | 4096 | 8192 | 1024 | 2048 | 256
        if self.items.count > 1 { bits |= 64 | 128 }
        if let ad = self.ad, self.clip(of: ad)?["whenSkippable"] != nil { bits |= 512 }
        return bits
    }

    /// MEDIA_STATUS; `media` only when asked (LOAD, a new item, GET_STATUS), as receivers send partial updates.
    func statusMessage(requestID: Int, includingMedia: Bool) -> JSONValue {
        guard self.mediaSessionID != 0 else {
            return ["type": "MEDIA_STATUS", "requestId": .integer(requestID), "status": []]
        }
        var entry: [String: JSONValue] = [
            "mediaSessionId": .integer(self.mediaSessionID),
            "playbackRate": .number(self.rate),
            "playerState": .string(self.playerState.rawValue),
            "currentTime": .number(self.contentPosition(at: self.now)),
            "supportedMediaCommands": .integer(self.supportedCommands),
            "volume": ["level": .number(self.level), "muted": .bool(self.muted)],
            "repeatMode": .string(self.repeatMode.rawValue),
        ]
        if let reason = self.idleReason, self.playerState == .idle { entry["idleReason"] = .string(reason.rawValue) }
        if let itemID = self.currentItemID { entry["currentItemId"] = .integer(itemID) }
        if let ids = self.activeTrackIDs { entry["activeTrackIds"] = .array(ids.map(JSONValue.integer)) }
        if includingMedia, var media = self.currentItem?.media?.objectValue {
            if let style = self.textTrackStyle { media["textTrackStyle"] = style }
            entry["media"] = .object(media)
            entry["items"] = .array(self.items.map { ["itemId": .integer($0.itemID)] })
        }
        if let ad = self.ad, let clip = self.clip(of: ad) {
            var status: [String: JSONValue] = [
                "breakId": self.breaks[ad.breakIndex]["id"] ?? .null, "breakClipId": clip["id"] ?? .null,
            ]
            if let skippable = clip["whenSkippable"] { status["whenSkippable"] = skippable }
            entry["breakStatus"] = .object(status)
        }
        return ["type": "MEDIA_STATUS", "requestId": .integer(requestID), "status": [.object(entry)]]
    }

    private static func invalidRequest(_ requestID: Int, _ reason: String) -> JSONValue {
        ["type": "INVALID_REQUEST", "requestId": .integer(requestID), "reason": .string(reason)]
    }

    private static func invalidState(_ requestID: Int) -> Outcome {
        Outcome(replies: [["type": "INVALID_PLAYER_STATE", "requestId": .integer(requestID)]])
    }
}
