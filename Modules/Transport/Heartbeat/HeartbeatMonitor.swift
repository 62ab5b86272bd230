import NIOCore

/// The heartbeat's decisions as a value: fed inbound arrivals, keep-alive
/// writes and timer ticks, it says when to PING, when the peer is dead, and
/// when to look again.
///
/// Chrome's keep-alive rules (components/cast_channel/keep_alive_handler.cc,
/// `ResetTimers` and `SendKeepAliveMessageComplete`): any inbound message
/// resets both timers; one PING goes out per silence, `pingInterval` after
/// the last inbound message; every PING or PONG written resets the liveness
/// timer. So the peer is dead `timeout` after the later of the last inbound
/// message and the last keep-alive written — with Chrome's 5 s / 10 s, 15 s
/// of total silence, 10 s after our PING.
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
    /// The last PING or PONG written since the last inbound message.
    private var lastKeepAlive: NIODeadline?
    private var pingedSinceInbound = false

    init(configuration: HeartbeatConfiguration, now: NIODeadline) {
        self.pingInterval = TimeAmount(configuration.pingInterval)
        self.timeout = TimeAmount(configuration.timeout)
        self.lastInbound = now
    }

    /// Records an inbound message of any kind.
    mutating func inboundReceived(at now: NIODeadline) {
        self.lastInbound = now
        self.lastKeepAlive = nil
        self.pingedSinceInbound = false
    }

    /// Records a PING or PONG written to the peer.
    mutating func keepAliveWritten(at now: NIODeadline) {
        self.lastKeepAlive = max(self.lastKeepAlive ?? now, now)
    }

    /// When the peer is dead if nothing more happens.
    private var livenessDeadline: NIODeadline {
        max(self.lastInbound, self.lastKeepAlive ?? self.lastInbound) + self.timeout
    }

    /// When the next tick is due.
    var nextDeadline: NIODeadline {
        if self.pingedSinceInbound { return self.livenessDeadline }
        return min(self.lastInbound + self.pingInterval, self.livenessDeadline)
    }

    /// Decides what to do at `now`.
    mutating func tick(at now: NIODeadline) -> Action {
        if now >= self.livenessDeadline {
            return .declareDead
        }
        if now - self.lastInbound >= self.pingInterval && !self.pingedSinceInbound {
            self.pingedSinceInbound = true
            return .sendPing
        }
        return .wait
    }
}
