import CastDBus

/// The TV as a second screen on GNOME: a virtual monitor mutter makes for a
/// screen cast (`org.gnome.Mutter.ScreenCast`, `RecordVirtual`), sized by the
/// stream's format, which the capture fixes to the receiver's size. GNOME
/// 43's portal offers no virtual source type, so this goes to mutter
/// itself, as gnome-network-displays does. The monitor lives as long as the
/// session: stopping it, or this process's bus connection closing, removes it.
///
/// Interface: mutter's `data/dbus-interfaces/org.gnome.Mutter.ScreenCast.xml`
/// (CreateSession → RecordVirtual → Start, the stream's `PipeWireStreamAdded`
/// naming the PipeWire node; Stop).
//
// @unchecked Sendable, and why it is safe: its mutable state (`session`) is
// written only (1) by its initializer, on the thread that sets the capture up,
// and (2) by `close()`. Nothing else holds it but the `PipeWireGrabber` it is
// handed to, which `ScreenCapture` stores in a `NIOLockedValueBox` and takes
// out under that lock to give to the capture thread — the lock orders the
// set-up thread's writes before any read there. `close()` runs from the
// grabber's `deinit` (one thread, once) and from this object's own `deinit`,
// which can only run after the grabber released it, on the same thread; so
// no two threads ever touch the state at the same time.
final class MutterVirtualMonitor: ScreenCastOwner, @unchecked Sendable {
    static let service = "org.gnome.Mutter.ScreenCast"
    private static let path = "/org/gnome/Mutter/ScreenCast"
    private static let sessionInterface = "org.gnome.Mutter.ScreenCast.Session"
    private static let streamInterface = "org.gnome.Mutter.ScreenCast.Stream"
    /// `cursor-mode`: 0 hidden, 1 embedded.
    private static let cursorHidden: UInt32 = 0
    private static let cursorEmbedded: UInt32 = 1

    private let bus: SessionBus
    private var session: String?
    /// The PipeWire node of the monitor's stream.
    let nodeID: UInt32

    /// Whether mutter's screen-cast service is on `bus`.
    static func isAvailable(on bus: SessionBus) -> Bool {
        bus.owner(of: Self.service) != nil
    }

    /// Starts a session with one virtual monitor's stream and waits (until
    /// `deadline`) for its PipeWire node.
    init(bus: SessionBus, showsCursor: Bool, until deadline: ContinuousClock.Instant, isCancelled: () -> Bool)
        throws(CaptureError)
    {
        self.bus = bus
        var session: String?
        do {
            self.nodeID = try Self.record(
                on: bus, showsCursor: showsCursor, session: &session, until: deadline, isCancelled: isCancelled)
            self.session = session
        } catch {
            Self.stop(session, on: bus)
            if let error = error as? CaptureError { throw error }
            throw CaptureError(.portalUnavailable, "mutter could not make a virtual monitor", cause: error)
        }
    }

    /// CreateSession, RecordVirtual, Start; the node `PipeWireStreamAdded` names.
    private static func record(
        on bus: SessionBus, showsCursor: Bool, session: inout String?, until deadline: ContinuousClock.Instant,
        isCancelled: () -> Bool
    ) throws -> UInt32 {
        let created = try bus.call(
            Self.service, path: Self.path, interface: Self.service, member: "CreateSession",
            arguments: [.dictionary([:])])
        guard let path = created.first?.string else {
            throw CaptureError(.portalUnavailable, "mutter made a screen-cast session without a path")
        }
        session = path
        try bus.addMatch("type='signal',interface='\(Self.streamInterface)',member='PipeWireStreamAdded'")
        let recorded = try bus.call(
            Self.service, path: path, interface: Self.sessionInterface, member: "RecordVirtual",
            arguments: [.dictionary(["cursor-mode": .uint32(showsCursor ? Self.cursorEmbedded : Self.cursorHidden)])])
        guard let stream = recorded.first?.string else {
            throw CaptureError(.portalUnavailable, "mutter recorded a virtual monitor without a stream")
        }
        _ = try bus.call(Self.service, path: path, interface: Self.sessionInterface, member: "Start", arguments: [])
        guard
            let added = try bus.waitForSignal(
                interface: Self.streamInterface, member: "PipeWireStreamAdded", path: stream, sender: Self.service,
                until: deadline, isCancelled: isCancelled),
            let node = added.first?.integer, let nodeID = UInt32(exactly: node)
        else {
            throw CaptureError(.portalUnavailable, "mutter did not start the virtual monitor's stream in time")
        }
        return nodeID
    }

    deinit {
        self.close()
    }

    /// Stops the session, which removes the monitor; idempotent.
    func close() {
        self.stop()
    }

    private func stop() {
        Self.stop(self.session, on: self.bus)
        self.session = nil
    }

    private static func stop(_ session: String?, on bus: SessionBus) {
        guard let session else { return }
        _ = try? bus.call(
            Self.service, path: session, interface: Self.sessionInterface, member: "Stop", arguments: [],
            timeout: .seconds(2))
    }
}
