import Synchronization

/// The cached filter verdict for one subsystem, so that a filtered-out log
/// call costs two atomic loads and no lock, no glob matching and no string
/// building.
///
/// The cache is tagged with the ``CastLogger`` configuration generation it
/// was computed for; any change to the filter or to the set of sinks bumps
/// the generation, and the next call recomputes under the logger's lock.
final class SubsystemGate: Sendable {
    let subsystem: String
    /// `generation << 8 | level.rawValue`; -1 before the first computation.
    private let cached = Atomic<Int>(-1)

    init(subsystem: String) {
        self.subsystem = subsystem
    }

    /// The least important level that reaches a sink from this subsystem
    /// now; ``CastLogLevel/none`` while no sink is installed.
    func level(in logger: CastLogger) -> CastLogLevel {
        let generation = logger.generation.load(ordering: .acquiring)
        let packed = self.cached.load(ordering: .relaxed)
        if packed >= 0, packed >> 8 == generation, let level = CastLogLevel(rawValue: packed & 0xFF) {
            return level
        }
        let (current, level) = logger.effectiveLevel(forSubsystem: self.subsystem)
        self.cached.store(current << 8 | level.rawValue, ordering: .relaxed)
        return level
    }
}
