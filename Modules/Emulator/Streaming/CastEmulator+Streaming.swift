@_spi(Receiver) import CastStreaming

/// The Cast Streaming receiver seen from the test's side: how it answers,
/// what the network does to the media, and what it measured.
extension CastEmulator {
    /// How the streaming receiver answers the next OFFER; a changed
    /// ``StreamingReceiverConfiguration/impairment`` applies at once to the
    /// running session (lift a bandwidth cap mid-stream this way).
    public var streaming: StreamingReceiverConfiguration {
        get { self.platformHub.streaming.configuration }
        set { self.platformHub.streaming.configuration = newValue }
    }

    /// What the streaming receiver measured in the running session, or the
    /// last one after it stopped; `nil` before any OFFER was accepted.
    public var streamingReport: StreamingReport? {
        self.platformHub.streaming.report
    }

    /// Starts the running receiver's ``streamingReport`` anew — counts and
    /// latency samples — so that a measurement leaves out a stream's start
    /// (instrumentation; no receiver does this).
    public func resetStreamingReport() {
        self.platformHub.streaming.resetStatistics()
    }

    /// The running streaming receiver's UDP port, or `nil` when none runs.
    public var streamingPort: Int? {
        self.platformHub.streaming.port
    }

    /// Asks the sender for a key frame (RTCP PLI), as a receiver does after
    /// a decode error, until one arrives.
    public func requestKeyFrame() {
        self.platformHub.streaming.requestKeyFrame()
    }
}
