import NIOConcurrencyHelpers

/// When a sink's stream should run: from the moment an app plays into the
/// sink until the sink has been silent for the grace period, so a pause
/// between two songs keeps the device's session (p-cast, the tool Linux
/// users run for this today, waits the same way).
///
/// ``changes`` yields `true` when the stream should start and `false` when
/// it should stop, each once per change; the grace period runs on the
/// injected clock.
final class StreamDemand: Sendable {
    /// How long a silent sink keeps its stream; a change applies from the next silence.
    var gracePeriod: Duration {
        get { self.state.withLockedValue { $0.gracePeriod } }
        set { self.state.withLockedValue { $0.gracePeriod = newValue } }
    }
    private let clock: any Clock<Duration>
    private let state:
        NIOLockedValueBox<
            (wanted: Bool, silence: Task<Void, Never>?, generation: Int, gracePeriod: Duration)
        >
    private let continuation: AsyncStream<Bool>.Continuation
    /// `true`: start the stream; `false`: stop it. One reader.
    let changes: AsyncStream<Bool>

    init(gracePeriod: Duration, clock: any Clock<Duration>) {
        self.state = NIOLockedValueBox((wanted: false, silence: nil, generation: 0, gracePeriod: gracePeriod))
        self.clock = clock
        (self.changes, self.continuation) = AsyncStream.makeStream()
    }

    deinit {
        self.state.withLockedValue { $0.silence?.cancel() }
        self.continuation.finish()
    }

    /// The sink's state changed: an app plays into it (`true`) or none does.
    func update(playing: Bool) {
        self.state.withLockedValue { state in
            if playing {
                state.silence?.cancel()
                state.silence = nil
                state.generation += 1
                if !state.wanted {
                    state.wanted = true
                    self.continuation.yield(true)
                }
            } else if state.wanted, state.silence == nil {
                state.generation += 1
                let generation = state.generation
                state.silence = Task { [clock = self.clock, grace = state.gracePeriod] in
                    do {
                        try await clock.sleep(for: grace)
                    } catch {
                        return
                    }
                    self.silenceLasted(generation)
                }
            }
        }
    }

    /// Whether the stream should run now.
    var isWanted: Bool { self.state.withLockedValue { $0.wanted } }

    /// No more changes (the sink is going away).
    func finish() {
        self.state.withLockedValue { state in
            state.silence?.cancel()
            state.silence = nil
        }
        self.continuation.finish()
    }

    private func silenceLasted(_ generation: Int) {
        self.state.withLockedValue { state in
            guard state.generation == generation, state.wanted else { return }
            state.wanted = false
            state.silence = nil
            self.continuation.yield(false)
        }
    }
}
