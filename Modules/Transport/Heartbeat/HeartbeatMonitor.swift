import NIOCore

/// The heartbeat's decisions as a value: fed inbound arrivals and timer
/// ticks, it says when to PING, when the peer is dead, and when to look again.
///
/// Any inbound message resets both timers (Chrome's rule). One PING is sent
/// per silence; if nothing arrives by `timeout` after the last message, the
/// peer is dead.
struct HeartbeatMonitor {
    /// What the caller must do after a tick.
    enum Action: Equatable {
        /// Nothing yet.
        case wait
        /// Send one PING.
        case sendPing
        /// Close the connection: the peer has been silent for the whole timeout.
        case declareDead
    }

    private let pingInterval: TimeAmount
    private let timeout: TimeAmount
    private var lastInbound: NIODeadline
    private var pingedSinceInbound = false

    init(configuration: HeartbeatConfiguration, now: NIODeadline) {
        self.pingInterval = TimeAmount(configuration.pingInterval)
        self.timeout = TimeAmount(configuration.timeout)
        self.lastInbound = now
    }

    /// Records an inbound message of any kind.
    mutating func inboundReceived(at now: NIODeadline) {
        self.lastInbound = now
        self.pingedSinceInbound = false
    }

    /// When the next tick is due.
    var nextDeadline: NIODeadline {
        if self.pingedSinceInbound || self.pingInterval >= self.timeout {
            return self.lastInbound + self.timeout
        }
        return self.lastInbound + self.pingInterval
    }

    /// Decides what to do at `now`.
    mutating func tick(at now: NIODeadline) -> Action {
        let silence = now - self.lastInbound
        if silence >= self.timeout {
            return .declareDead
        }
        if silence >= self.pingInterval && !self.pingedSinceInbound {
            self.pingedSinceInbound = true
            return .sendPing
        }
        return .wait
    }
}
