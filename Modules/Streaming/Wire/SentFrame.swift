/// One frame in a stream's retransmission window: its packets as they go
/// on the wire (headers written, payload encrypted) and when each was last
/// sent. Slots are reused frame after frame; the packet memory only grows,
/// straight to the largest frame the stream has sent (``reset(packetCount:reserving:)``),
/// so steady-state sending allocates nothing.
///
/// Owned by one ``StreamSender``; used only under the engine's lock.
final class SentFrame {
    var frameID: Int64 = -1
    var isKeyFrame = false
    var captureTime = HostTime(nanoseconds: 0)
    var encodedByteCount = 0
    var packetCount = 0
    var isAcknowledged = false
    /// When packet `i` was last sent, host-clock nanoseconds; 0 = never.
    private(set) var lastSent: UnsafeMutablePointer<Int64>
    /// Whether packet `i` waits in the resend queue.
    private(set) var resendQueued: UnsafeMutablePointer<Bool>
    private var lengths: UnsafeMutablePointer<Int>
    private var packets: UnsafeMutableRawPointer
    private var capacity: Int

    /// A slot with room for at least `packetCapacity` packets.
    init(packetCapacity: Int) {
        let capacity = Self.capacity(for: packetCapacity)
        self.capacity = capacity
        self.packets = UnsafeMutableRawPointer.allocate(
            byteCount: capacity * RTPPacketHeader.maximumPacketSize, alignment: 16)
        self.lengths = .allocate(capacity: capacity)
        self.lastSent = .allocate(capacity: capacity)
        self.resendQueued = .allocate(capacity: capacity)
    }

    /// The room to allocate for `needed` packets: a power of two (at least
    /// 8), so frames a little larger than any before — the rate control
    /// overshooting — still fit, and growth stops early.
    private static func capacity(for needed: Int) -> Int {
        var capacity = 8
        while capacity < needed { capacity *= 2 }
        return capacity
    }

    deinit {
        self.packets.deallocate()
        self.lengths.deallocate()
        self.lastSent.deallocate()
        self.resendQueued.deallocate()
    }

    /// Makes room for `count` packets, forgetting what the slot held; when it
    /// must grow, it grows to at least `reserved` packets (room for the
    /// stream's largest frames), so a slot grows once, not at every larger frame.
    func reset(packetCount count: Int, reserving reserved: Int) {
        if count > self.capacity {
            self.packets.deallocate()
            self.lengths.deallocate()
            self.lastSent.deallocate()
            self.resendQueued.deallocate()
            self.capacity = Self.capacity(for: max(count, reserved))
            self.packets = .allocate(byteCount: self.capacity * RTPPacketHeader.maximumPacketSize, alignment: 16)
            self.lengths = .allocate(capacity: self.capacity)
            self.lastSent = .allocate(capacity: self.capacity)
            self.resendQueued = .allocate(capacity: self.capacity)
        }
        self.packetCount = count
        self.isAcknowledged = false
        self.lastSent.update(repeating: 0, count: count)
        self.resendQueued.update(repeating: false, count: count)
    }

    /// Where packet `index` is written.
    func packet(_ index: Int) -> UnsafeMutableRawPointer {
        self.packets + index * RTPPacketHeader.maximumPacketSize
    }

    func setLength(_ length: Int, ofPacket index: Int) {
        self.lengths[index] = length
    }

    /// Packet `index` as bytes ready to send.
    func bytes(ofPacket index: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: self.packet(index), count: self.lengths[index])
    }
}
