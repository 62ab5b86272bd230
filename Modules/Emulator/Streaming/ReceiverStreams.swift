@_spi(Receiver) package import CastStreaming

/// A session's receiving streams and when each sends its feedback, on Open
/// Screen's schedule — on every SR, when a checkpoint moves, every 30 ms
/// while a frame is incomplete, else every 500 ms (Docs/spec/cast-streaming.md §4).
/// A value that takes datagrams and time as inputs: ``StreamingReceiver``
/// drives it from a UDP socket and its own clock, a test at virtual time.
package struct ReceiverStreams {
    package let streams: [ReceiverStream]
    private var lastFeedback: [HostTime?]
    private var feedbackDue: [Bool]
    private(set) var feedbackPackets = 0
    private(set) var senderReports = 0
    private var scratch: [UInt8] = []

    static let incompleteFeedbackInterval: Duration = .milliseconds(30)
    static let idleFeedbackInterval: Duration = .milliseconds(500)

    package init(_ streams: [ReceiverStream]) {
        self.streams = streams
        self.lastFeedback = Array(repeating: nil, count: streams.count)
        self.feedbackDue = Array(repeating: false, count: streams.count)
    }

    /// Takes one datagram from the sender, arrived at `now`: a sender report
    /// or an RTP packet of one of the streams. Whether it was one.
    package mutating func take(_ bytes: [UInt8], at now: HostTime) -> Bool {
        bytes.withUnsafeBytes { self.take(bytes, datagram: $0, at: now) }
    }

    private mutating func take(_ bytes: [UInt8], datagram: UnsafeRawBufferPointer, at now: HostTime) -> Bool {
        if RTCPPacketType.isRTCP(datagram) {
            guard let compound = RTCPCompound.parse(datagram), let report = compound.senderReport,
                let index = self.streams.firstIndex(where: { $0.senderSSRC == report.ssrc })
            else { return false }
            self.streams[index].receive(report, at: now)
            self.senderReports += 1
            self.feedbackDue[index] = true
            return true
        }
        guard let (header, offset) = RTPPacketHeader.parse(datagram),
            let index = self.streams.firstIndex(where: {
                $0.senderSSRC == header.ssrc && $0.payloadType == header.payloadType
            })
        else { return false }
        if self.streams[index].receive(header, payload: bytes[offset...], at: now) {
            self.feedbackDue[index] = true
        }
        return true
    }

    /// The 10 ms tick: frames due for playout are played or skipped.
    package mutating func tick(at now: HostTime) {
        for (index, stream) in self.streams.enumerated() where stream.advance(at: now) {
            self.feedbackDue[index] = true
        }
    }

    /// Asks the sender for a key frame (PLI) from the next feedback on.
    mutating func requestKeyFrame() {
        for (index, stream) in self.streams.enumerated() where stream.kind == .video {
            stream.needsKeyFrame = true
            self.feedbackDue[index] = true
        }
    }

    /// The compound RTCP datagrams due at `now`, one per stream whose feedback is due.
    package mutating func dueFeedback(at now: HostTime) -> [[UInt8]] {
        var replies: [[UInt8]] = []
        for (index, stream) in self.streams.enumerated() where stream.hasSenderReport {
            let since = self.lastFeedback[index].map { $0.duration(to: now) }
            let interval = stream.hasIncompleteFrames ? Self.incompleteFeedbackInterval : Self.idleFeedbackInterval
            guard self.feedbackDue[index] || since.map({ $0 >= interval }) ?? true else { continue }
            self.scratch.removeAll(keepingCapacity: true)
            stream.writeFeedback(at: now, into: &self.scratch)
            replies.append(self.scratch)
            self.feedbackDue[index] = false
            self.lastFeedback[index] = now
            self.feedbackPackets += 1
        }
        return replies
    }
}
