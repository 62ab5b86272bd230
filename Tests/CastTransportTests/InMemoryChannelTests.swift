import CastTestSupport
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@_spi(Receiver) @testable import CastTransport

/// The two ends of an in-memory pair behave as a connected socket's would
/// for the pipelines above them: bytes in order, reads that follow
/// `autoRead`, end of file after what came before, no writes after close.
@Suite(.timeLimit(.minutes(3))) struct InMemoryChannelTests {
    /// What one end's pipeline saw: the bytes read, and whether it went inactive.
    final class Recorder: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer

        let bytes = NIOLockedValueBox([UInt8]())
        let events = NIOLockedValueBox([String]())
        private let waiters = NIOLockedValueBox([AsyncStream<Void>.Continuation]())

        func channelActive(context: ChannelHandlerContext) {
            self.events.withLockedValue { $0.append("active") }
            self.changed()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = Self.unwrapInboundIn(data)
            self.bytes.withLockedValue { $0 += Array(buffer.readableBytesView) }
            self.changed()
        }

        func channelInactive(context: ChannelHandlerContext) {
            self.events.withLockedValue { $0.append("inactive") }
            self.changed()
        }

        /// Waits until `condition` holds of what was seen (the deadline only fails the test).
        func wait(until condition: @escaping @Sendable (Recorder) -> Bool) async {
            let (changes, continuation) = AsyncStream.makeStream(of: Void.self)
            self.waiters.withLockedValue { $0.append(continuation) }
            continuation.yield()
            _ = await first(changes, within: .seconds(10)) { _ in condition(self) }
        }

        private func changed() {
            for waiter in self.waiters.withLockedValue({ $0 }) { waiter.yield() }
        }
    }

    /// A pair on two loops, each end with a recorder, both active.
    static func pair() async throws -> (InMemoryChannel, Recorder, InMemoryChannel, Recorder) {
        let group = MultiThreadedEventLoopGroup.singleton
        let (one, other) = InMemoryChannel.makePair(on: group.next(), and: group.next())
        let first = Recorder()
        let second = Recorder()
        try await one.pipeline.addHandler(first)
        try await other.pipeline.addHandler(second)
        try await one.activate().get()
        try await other.activate().get()
        return (one, first, other, second)
    }

    @Test func bytesFlushedOnOneEndAreReadOnTheOtherInOrder() async throws {
        let (one, first, other, second) = try await Self.pair()
        try await one.writeAndFlush(one.allocator.buffer(bytes: [1, 2, 3]))
        one.write(one.allocator.buffer(bytes: [4]), promise: nil)
        try await one.writeAndFlush(one.allocator.buffer(bytes: [5, 6]))
        try await other.writeAndFlush(other.allocator.buffer(bytes: [9]))
        await second.wait { $0.bytes.withLockedValue { $0.count } == 6 }
        await first.wait { $0.bytes.withLockedValue { $0.count } == 1 }
        #expect(second.bytes.withLockedValue { $0 } == [1, 2, 3, 4, 5, 6])
        #expect(first.bytes.withLockedValue { $0 } == [9])
        #expect(one.isActive && other.isActive)
        try await one.close()
    }

    /// A receiver that floods its sender (a burst in one turn of its loop) is read whole and in order.
    @Test func aBurstOfSmallWritesArrivesWholeAndInOrder() async throws {
        let (one, _, _, second) = try await Self.pair()
        let count = 20_000
        try await one.eventLoop.submit {
            for index in 0..<count { one.write(one.allocator.buffer(integer: UInt16(index)), promise: nil) }
            one.flush()
        }.get()
        await second.wait { $0.bytes.withLockedValue { $0.count } == count * 2 }
        let bytes = second.bytes.withLockedValue { $0 }
        let values = stride(from: 0, to: bytes.count, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
        #expect(values == (0..<count).map { UInt16($0) })
        try await one.close()
    }

    @Test func writtenButNotFlushedBytesStayWithTheWriter() async throws {
        let (one, _, _, second) = try await Self.pair()
        let written = one.write(one.allocator.buffer(bytes: [7]))
        try await one.writeAndFlush(one.allocator.buffer(bytes: [8]))
        try await written.get()
        await second.wait { $0.bytes.withLockedValue { $0.count } == 2 }
        #expect(second.bytes.withLockedValue { $0 } == [7, 8])
        try await one.close()
    }

    @Test func aPeerThatStopsReadingHoldsWhatItWasSentUntilItReadsAgain() async throws {
        let (one, _, other, second) = try await Self.pair()
        try await other.setOption(ChannelOptions.autoRead, value: false).get()
        #expect(try await other.getOption(ChannelOptions.autoRead).get() == false)
        // It stops at once, as NIO's sockets do, even with a read already asked for.
        try await one.writeAndFlush(one.allocator.buffer(bytes: [1, 2]))
        try await one.writeAndFlush(one.allocator.buffer(bytes: [3]))
        // Past the other end's loop twice (the hand-over, then the delivery it would schedule).
        try await other.eventLoop.submit {}.get()
        try await other.eventLoop.submit {}.get()
        #expect(second.bytes.withLockedValue { $0 }.isEmpty)
        try await other.setOption(ChannelOptions.autoRead, value: true).get()
        await second.wait { $0.bytes.withLockedValue { $0.count } == 3 }
        #expect(second.bytes.withLockedValue { $0 } == [1, 2, 3])
        try await one.close()
    }

    @Test func writesToAPeerThatStopsReadingCompleteUntilItsBufferIsFull() async throws {
        let (one, _, other, second) = try await Self.pair()
        try await other.setOption(ChannelOptions.autoRead, value: false).get()
        try await one.writeAndFlush(one.allocator.buffer(bytes: [1]))
        // A buffer's worth is taken; the next byte waits for the reader.
        let full = [UInt8](repeating: 2, count: InMemoryChannel.bufferLimit - 1)
        try await one.writeAndFlush(one.allocator.buffer(bytes: full))
        let completed = NIOLockedValueBox(false)
        let waiting = one.eventLoop.makePromise(of: Void.self)
        one.writeAndFlush(one.allocator.buffer(bytes: [3]), promise: waiting)
        waiting.futureResult.whenSuccess { completed.withLockedValue { $0 = true } }
        try await other.eventLoop.submit {}.get()
        try await other.eventLoop.submit {}.get()
        try await one.eventLoop.submit {}.get()
        #expect(!completed.withLockedValue { $0 })
        try await other.setOption(ChannelOptions.autoRead, value: true).get()
        try await waiting.futureResult.get()
        await second.wait { $0.bytes.withLockedValue { $0.count } == InMemoryChannel.bufferLimit + 1 }
        #expect(second.bytes.withLockedValue { $0.last } == 3)
        try await one.close()
    }

    @Test func closingOneEndIsTheOthersEndOfFileAfterWhatCameBefore() async throws {
        let (one, first, other, second) = try await Self.pair()
        one.write(one.allocator.buffer(bytes: [1, 2, 3]), promise: nil)
        one.flush()
        try await one.close()
        await second.wait { $0.events.withLockedValue { $0.contains("inactive") } }
        #expect(second.bytes.withLockedValue { $0 } == [1, 2, 3])
        #expect(second.events.withLockedValue { $0 } == ["active", "inactive"])
        #expect(first.events.withLockedValue { $0 } == ["active", "inactive"])
        try await other.closeFuture.get()
        #expect(!one.isActive && !other.isActive)
        await #expect(throws: ChannelError.ioOnClosedChannel) {
            try await other.writeAndFlush(other.allocator.buffer(bytes: [4])).get()
        }
        await #expect(throws: ChannelError.alreadyClosed) { try await one.close().get() }
    }

    @Test func bytesSentBeforeTheOtherEndIsActiveWaitForIt() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let (one, other) = InMemoryChannel.makePair(on: group.next(), and: group.next())
        let second = Recorder()
        try await one.activate().get()
        try await one.writeAndFlush(one.allocator.buffer(bytes: [5]))
        try await other.pipeline.addHandler(second)
        #expect(second.bytes.withLockedValue { $0 }.isEmpty)
        try await other.activate().get()
        await second.wait { $0.bytes.withLockedValue { $0.count } == 1 }
        #expect(second.bytes.withLockedValue { $0 } == [5])
        try await other.close()
        try await one.closeFuture.get()
    }

    @Test func socketOnlyOperationsAreUnsupported() async throws {
        let (one, _, _, _) = try await Self.pair()
        await #expect(throws: ChannelError.operationUnsupported) {
            try await one.getOption(ChannelOptions.socketOption(.so_reuseaddr)).get()
        }
        await #expect(throws: ChannelError.operationUnsupported) {
            try await one.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).get()
        }
        await #expect(throws: ChannelError.operationUnsupported) { try await one.close(mode: .output).get() }
        #expect(one.localAddress == nil && one.remoteAddress == nil)
        try await one.close()
    }
}
