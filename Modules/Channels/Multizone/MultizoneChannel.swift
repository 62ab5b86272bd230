import CastCommon
import CastTransport
import NIOConcurrencyHelpers

/// A speaker group's channel (`urn:x-cast:com.google.cast.multizone` to the
/// group's `receiver-0`, Docs/spec/castv2-control.md §4): the members, kept
/// up to date from DEVICE_ADDED / DEVICE_UPDATED / DEVICE_REMOVED, and the
/// casting groups.
public final class MultizoneChannel: CastChannel, @unchecked Sendable {
    // @unchecked Sendable: restated from CastChannel, as Swift requires. Its
    // stored properties are `let`s of Sendable types: `requestTimeout`
    // (Duration), `requests` (RequestTracker, locked inside), `members`
    // (NIOLockedValueBox: the member list changes only under its lock) and
    // `broadcaster` (EventBroadcaster, locked inside).

    /// How long a request waits for its reply. Default 10 s.
    public let requestTimeout: Duration

    /// The most members kept: more than any real group, so a receiver cannot grow the list without bound.
    static let memberLimit = 512

    private let requests = RequestTracker<MultizoneReply>()
    private let members = NIOLockedValueBox<[MultizoneDevice]>([])
    private let broadcaster = EventBroadcaster<MultizoneEvent>(
        initial: nil, replaysLatest: false, buffering: .bufferingNewest(CastChannel.listenerBufferLimit))

    /// Creates a multizone channel; attach it to a group's `receiver-0`.
    public init(requestTimeout: Duration = .seconds(10)) {
        self.requestTimeout = requestTimeout
        super.init(platformNamespace: CastNamespace.multizone)
    }

    /// The members as last reported, in the receiver's order.
    public var devices: [MultizoneDevice] {
        self.members.withLockedValue { $0 }
    }

    /// Member and casting-group changes from now on; each call gives a new, independent stream.
    public func events() -> AsyncStream<MultizoneEvent> {
        self.broadcaster.subscribe()
    }

    /// Asks for the members (GET_STATUS → MULTIZONE_STATUS).
    ///
    /// - Throws: ``CastChannelError/Code/invalidRequest``, ``CastChannelError/Code/unexpectedReply``, or a request error.
    @discardableResult
    public func requestStatus() async throws(CastChannelError) -> MultizoneStatus {
        switch try await self.sendRequest(["type": "GET_STATUS"], tracker: self.requests, timeout: self.requestTimeout)
        {
        case .status(let status): return status
        case let reply: throw Self.error(for: reply, expecting: "MULTIZONE_STATUS")
        }
    }

    /// Asks for the groups this device belongs to (GET_CASTING_GROUPS → CASTING_GROUPS).
    ///
    /// - Throws: as ``requestStatus()``.
    public func requestCastingGroups() async throws(CastChannelError) -> [CastingGroup] {
        let reply = try await self.sendRequest(
            ["type": "GET_CASTING_GROUPS"], tracker: self.requests, timeout: self.requestTimeout)
        switch reply {
        case .castingGroups(let groups): return groups
        case let reply: throw Self.error(for: reply, expecting: "CASTING_GROUPS")
        }
    }

    /// Decodes a multizone message, applies it, then resolves the request it answers.
    override public func didReceiveTextMessage(_ message: String) {
        guard let json = try? JSONValue(parsing: message), let type = json.messageType else {
            self.logger.debug("dropping a multizone message that is not a typed JSON object")
            return
        }
        let reply: MultizoneReply
        switch type {
        case "MULTIZONE_STATUS":
            let status = MultizoneStatus(json: json["status"] ?? [:])
            self.members.withLockedValue { $0 = Array(status.devices.prefix(Self.memberLimit)) }
            self.broadcaster.yield(.statusChanged(status))
            reply = .status(status)
        case "CASTING_GROUPS":
            let list = json["status"]?["groups"] ?? json["groups"]
            let groups = (list?.arrayValue ?? []).compactMap(CastingGroup.init(json:))
            self.broadcaster.yield(.castingGroupsChanged(groups))
            reply = .castingGroups(groups)
        case "DEVICE_ADDED", "DEVICE_UPDATED":
            guard let device = json["device"].flatMap(MultizoneDevice.init(json:)) else {
                self.logger.debug("dropping \(type) without a device")
                return
            }
            let change: MultizoneEvent? = self.members.withLockedValue { members in
                if let index = members.firstIndex(where: { $0.id == device.id }) {
                    members[index] = device
                    return .deviceUpdated(device)
                }
                guard members.count < Self.memberLimit else { return nil }
                members.append(device)
                return .deviceAdded(device)
            }
            guard let change else {
                self.logger.debug("dropping DEVICE_ADDED beyond \(Self.memberLimit) members")
                return
            }
            self.broadcaster.yield(change)
            return
        case "DEVICE_REMOVED":
            guard let id = json["deviceId"]?.stringValue else {
                self.logger.debug("dropping DEVICE_REMOVED without a deviceId")
                return
            }
            self.members.withLockedValue { members in members.removeAll { $0.id == id } }
            self.broadcaster.yield(.deviceRemoved(id: id))
            return
        case "INVALID_REQUEST":
            reply = .invalidRequest(reason: json["reason"]?.stringValue)
        default:
            self.logger.debug("unknown multizone message type", metadata: ["cast.type": "\(type)"])
            reply = .other(type: type)
        }
        if let requestID = json["requestId"]?.intValue, requestID > 0 {
            self.requests.resolve(requestID: requestID, with: .success(reply))
        }
    }

    /// Fails every pending request: the connection is gone.
    override public func didDisconnect() {
        self.requests.failAll(CastChannelError(.disconnected, "the multizone channel disconnected"))
    }

    private static func error(for reply: MultizoneReply, expecting expected: String) -> CastChannelError {
        switch reply {
        case .invalidRequest(let reason):
            CastChannelError(.invalidRequest, "the receiver rejected the request", reason: reason)
        case .status: CastChannelError(.unexpectedReply, "expected \(expected), got MULTIZONE_STATUS")
        case .castingGroups: CastChannelError(.unexpectedReply, "expected \(expected), got CASTING_GROUPS")
        case .other(let type): CastChannelError(.unexpectedReply, "expected \(expected), got \(type)")
        }
    }
}
