import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// One timer for the media players of every running emulator in the
/// process: every 100 ms each player moves on to its clock's time, so an
/// item or a clip that ends reaches its senders within 100 ms.
///
/// One repeated task for all, not one per emulator: `cast-receiver
/// --devices 1000` had 1 000 timers firing ten times a second, 13 % of a
/// core with nothing connected, most of it keeping the event loop's timer
/// heap in order.
final class MediaTicker: Sendable {
    /// The process's ticker, on NIO's shared event loops.
    static let shared = MediaTicker(loop: MultiThreadedEventLoopGroup.singleton.next())

    private struct State {
        var ticks: [Int: @Sendable () -> Void] = [:]
        var nextID = 0
        var task: RepeatedTask?
    }

    private let state = NIOLockedValueBox(State())
    private let loop: any EventLoop

    init(loop: any EventLoop) {
        self.loop = loop
    }

    /// Calls `tick` every 100 ms from now until ``remove(_:)`` with the id returned.
    func add(_ tick: @escaping @Sendable () -> Void) -> Int {
        self.state.withLockedValue { state in
            state.nextID += 1
            state.ticks[state.nextID] = tick
            if state.task == nil {
                state.task = self.loop.scheduleRepeatedTask(
                    initialDelay: .milliseconds(100), delay: .milliseconds(100)
                ) { [weak self] _ in self?.tickAll() }
            }
            return state.nextID
        }
    }

    /// Stops calling the tick `id`; the timer stops with the last one.
    func remove(_ id: Int) {
        self.state.withLockedValue { state in
            state.ticks[id] = nil
            if state.ticks.isEmpty {
                state.task?.cancel()
                state.task = nil
            }
        }
    }

    private func tickAll() {
        let ticks = self.state.withLockedValue { Array($0.ticks.values) }
        for tick in ticks { tick() }
    }
}
