import CastChannels
import Testing

@Suite(.timeLimit(.minutes(3))) struct ReceiverStatusDecodingTests {
    /// A RECEIVER_STATUS with every field the model reads.
    static let fullStatus = """
        {"applications":[{"appId":"CC1AD845","universalAppId":"CC1AD845","displayName":"Default Media Receiver",
        "iconUrl":"","isIdleScreen":false,"launchedFromCloud":false,
        "namespaces":[{"name":"urn:x-cast:com.google.cast.media"}],"sessionId":"S-1","statusText":"Ready",
        "transportId":"web-4","appType":"WEB"}],
        "isActiveInput":true,"isStandBy":false,
        "volume":{"controlType":"attenuation","level":0.25,"muted":true,"stepInterval":0.05}}
        """

    @Test func readsAFullStatus() throws {
        let status = ReceiverStatus(json: try JSONValue(parsing: Self.fullStatus))
        let application = try #require(status.applications.first)
        #expect(application.appID == "CC1AD845")
        #expect(application.sessionID == "S-1")
        #expect(application.transportID == "web-4")
        #expect(application.namespaces == ["urn:x-cast:com.google.cast.media"])
        #expect(application.supports(namespace: "urn:x-cast:com.google.cast.media"))
        #expect(application.appType == "WEB")
        #expect(
            status.volume == ReceiverVolume(level: 0.25, isMuted: true, controlType: .attenuation, stepInterval: 0.05))
        #expect(status.isActiveInput == true)
        #expect(status.isStandBy == false)
        #expect(status.application(sessionID: "S-1") == application)
        #expect(status.runningApplication(appID: "CC1AD845") == application)
    }

    @Test func toleratesWhatOldFirmwareAndGroupsLeaveOut() throws {
        let status = ReceiverStatus(
            json: try JSONValue(
                parsing: """
                    {"applications":[{"appId":"705D30C6","displayName":"MultizoneFollower",
                    "namespaces":["urn:x-cast:com.google.cast.debugoverlay","urn:x-cast:com.google.cast.media"],
                    "sessionId":"F-1"},{"displayName":"no app id"}],
                    "volume":{"controlType":"fixed"}}
                    """))
        #expect(status.applications.count == 1)
        let follower = try #require(status.applications.first)
        #expect(follower.transportID == nil)
        #expect(follower.namespaces == ["urn:x-cast:com.google.cast.debugoverlay", "urn:x-cast:com.google.cast.media"])
        #expect(status.volume.controlType == .fixed)
        #expect(status.volume.level == nil)
        #expect(status.isActiveInput == nil)

        let bare = ReceiverStatus(json: try JSONValue(parsing: #"{"volume":{"level":1,"controlType":"master"}}"#))
        #expect(bare.applications.isEmpty)
        #expect(bare.volume.level == 1)
        #expect(bare.volume.controlType == .master)
        let odd = ReceiverStatus(
            json: try JSONValue(parsing: #"{"applications":"none","volume":{"controlType":"dial"}}"#))
        #expect(odd.applications.isEmpty)
        #expect(odd.volume.controlType == .other("dial"))
    }

    @Test func idleScreensDoNotCountAsRunningApps() throws {
        let status = ReceiverStatus(
            json: try JSONValue(
                parsing:
                    #"{"applications":[{"appId":"E8C28D3C","isIdleScreen":true,"sessionId":"I","transportId":"t"}]}"#))
        #expect(status.runningApplication(appID: "E8C28D3C") == nil)
        #expect(status.application(sessionID: "I")?.isIdleScreen == true)
    }

    @Test func launchErrorReasonsAreTyped() {
        #expect(LaunchErrorReason(rawValue: "CANCELLED") == .cancelled)
        #expect(LaunchErrorReason(rawValue: "BAD_PARAMETER") == .badParameter)
        #expect(LaunchErrorReason(rawValue: "NOT_FOUND") == .notFound)
        #expect(LaunchErrorReason(rawValue: "SYSTEM_ERROR") == .systemError)
        #expect(LaunchErrorReason(rawValue: "NOT_ALLOWED") == .notAllowed)
        #expect(LaunchErrorReason(rawValue: "RECEIVER_BUSY") == .other("RECEIVER_BUSY"))
    }
}
