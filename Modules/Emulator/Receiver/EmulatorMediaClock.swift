@_spi(Receiver) import CastTransport
import NIOConcurrencyHelpers

/// The time the emulator's media player runs on: the machine's clock, or a
/// manual one a test moves forward with ``CastEmulator/advanceMediaClock(by:)``
/// so that items finish, clips end and breaks become skippable exactly when
/// the test says.
public final class EmulatorMediaClock: Sendable {
    private enum Source {
        case system(ContinuousClock.Instant)
        case manual(Double)
    }

    private let source: NIOLockedValueBox<Source>

    private init(_ source: Source) {
        self.source = NIOLockedValueBox(source)
    }

    /// Real time.
    public static func system() -> EmulatorMediaClock {
        EmulatorMediaClock(.system(.now))
    }

    /// Time that moves only when advanced.
    public static func manual() -> EmulatorMediaClock {
        EmulatorMediaClock(.manual(0))
    }

    /// Seconds since the clock was made (real or manual).
    var now: Double {
        self.source.withLockedValue { source in
            switch source {
            case .system(let start):
                return (ContinuousClock.now - start) / .seconds(1)
            case .manual(let seconds):
                return seconds
            }
        }
    }

    /// Moves a manual clock forward; a system clock ignores it.
    func advance(by duration: Duration) {
        self.source.withLockedValue { source in
            if case .manual(let now) = source {
                source = .manual(now + duration / .seconds(1))
            }
        }
    }
}
