/// The network bandwidth estimate of Docs/spec/cast-streaming.md §5: two
/// histories of 256 slots of 10 ms (a 2.56 s window) — packets sent per
/// pacing burst, and bytes acknowledged, binned at (ACK arrival − RTT),
/// when the receiver had them. The estimate scales the acknowledged
/// throughput by how much of the pacer's capacity the sender used:
/// `bytesAcked · 8 / (window · packetsSent / maxPacketsPerWindow)`.
struct BandwidthEstimator {
    static let slotCount = 256
    static let slot: Duration = .milliseconds(10)
    private static let slotNanoseconds = Int64(10_000_000)

    private let maximumPacketsPerWindow: Int
    private var packetsSent = [Int](repeating: 0, count: BandwidthEstimator.slotCount)
    private var bytesAcknowledged = [Int](repeating: 0, count: BandwidthEstimator.slotCount)
    /// The absolute slot number each entry belongs to (stale entries count as 0).
    private var sentSlot = [Int64](repeating: -1, count: BandwidthEstimator.slotCount)
    private var ackedSlot = [Int64](repeating: -1, count: BandwidthEstimator.slotCount)

    init(maximumPacketsPerBurst: Int) {
        self.maximumPacketsPerWindow = maximumPacketsPerBurst * Self.slotCount
    }

    mutating func recordSent(packets: Int, at time: HostTime) {
        let slot = time.nanoseconds / Self.slotNanoseconds
        let index = Int(slot % Int64(Self.slotCount))
        if self.sentSlot[index] != slot {
            self.sentSlot[index] = slot
            self.packetsSent[index] = 0
        }
        self.packetsSent[index] += packets
    }

    mutating func recordAcknowledged(bytes: Int, at time: HostTime) {
        let slot = time.nanoseconds / Self.slotNanoseconds
        let index = Int(slot % Int64(Self.slotCount))
        if self.ackedSlot[index] != slot {
            self.ackedSlot[index] = slot
            self.bytesAcknowledged[index] = 0
        }
        self.bytesAcknowledged[index] += bytes
    }

    /// Bits per second, or `nil` while nothing was sent in the window.
    func estimate(at now: HostTime) -> Int? {
        let newest = now.nanoseconds / Self.slotNanoseconds
        let oldest = newest - Int64(Self.slotCount) + 1
        var packets = 0
        var bytes = 0
        for index in 0..<Self.slotCount {
            if self.sentSlot[index] >= oldest && self.sentSlot[index] <= newest { packets += self.packetsSent[index] }
            if self.ackedSlot[index] >= oldest && self.ackedSlot[index] <= newest {
                bytes += self.bytesAcknowledged[index]
            }
        }
        guard packets > 0 else { return nil }
        let window = Double(Self.slotCount) * 0.01
        let utilization = Double(packets) / Double(self.maximumPacketsPerWindow)
        return Int(Double(bytes) * 8 / (window * utilization))
    }
}

/// Sets the video bitrate every 500 ms (Docs/spec/cast-streaming.md §5):
/// down by ×0.7 when frames were dropped since the last step (Chrome's
/// rule — the sign of a path that cannot carry the rate), otherwise up by
/// at most ×1.1; never above the usable share of the bandwidth estimate
/// (max(0.8 × estimate, 384 kbit/s) less audio) nor outside the negotiated
/// minimum and maximum.
///
/// One rule of our own, from congestion control's "application-limited"
/// case: the rate only goes up while the encoder sends at least 80 % of it.
/// VP8 undershoots on easy pictures; raising a target nobody uses would let
/// it drift far above what the path carries, and the next hard picture
/// would flood the path.
package struct BitrateController {
    static let interval: Duration = .milliseconds(500)
    static let floor = 384_000

    let minimum: Int
    let maximum: Int
    let audioBitrate: Int
    private(set) var current: Int
    private var lastStep: HostTime?

    init(minimum: Int, maximum: Int, initial: Int, audioBitrate: Int) {
        self.minimum = minimum
        self.maximum = max(maximum, minimum)
        self.audioBitrate = audioBitrate
        self.current = min(max(initial, minimum), self.maximum)
    }

    /// The video bitrate after a step, or `nil` when no step is due yet.
    mutating func update(at now: HostTime, framesDropped: Bool, estimate: Int?, bytesSent: Int) -> Int? {
        guard let last = self.lastStep else {
            self.lastStep = now
            return nil
        }
        let interval = last.duration(to: now)
        guard interval >= Self.interval else { return nil }
        self.lastStep = now
        let sentRate = Double(bytesSent * 8) / (Double(interval.inNanoseconds) / 1e9)
        let factor = framesDropped ? 0.7 : (sentRate >= 0.8 * Double(self.current) ? 1.1 : 1)
        var next = Double(self.current) * factor
        if let estimate {
            let usable = max(Double(estimate) * 0.8, Double(Self.floor)) - Double(self.audioBitrate)
            next = min(next, usable)
        }
        self.current = min(max(Int(next), self.minimum), self.maximum)
        return self.current
    }
}
