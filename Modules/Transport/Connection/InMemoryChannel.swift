import NIOConcurrencyHelpers
public import NIOCore

/// One end of two channels joined in memory, as a socket pair would be:
/// bytes written and flushed on one end are read by the other, in order,
/// with no socket, TLS or timer between them.
///
/// Tests join a sender and the receiver emulator with a pair
/// (``CastConnection/init(inMemory:host:port:configuration:eventLoopGroup:logger:)``),
/// as SwiftNIO's own tests use `EmbeddedChannel`: the protocol's logic runs
/// as on the network, and nothing waits for a port, a handshake or a busy
/// machine's scheduler. Each end lives on its own event loop, where all of
/// its state is kept; a write crosses to the other end's loop.
///
/// What a socket does that matters to the pipelines above is kept: reads
/// follow `read()` and `ChannelOptions.autoRead`; a write completes once
/// its bytes fit in what the other end holds unread (``bufferLimit``, as a
/// socket's buffers), so a peer that stops reading backs its sender's
/// writes up; closing one end is the other's end of file once it has read
/// what came before; writes on a closed end fail with
/// `ChannelError.ioOnClosedChannel`. Half-closure, addresses and socket
/// options other than `autoRead` are not part of it.
@_spi(Receiver) public final class InMemoryChannel: Channel, ChannelCore, @unchecked Sendable {
    // @unchecked Sendable, and why that is safe, property by property:
    // - `eventLoop`, `allocator`, `parent`, `closePromise` are `let`s of Sendable types.
    // - `pipelineStorage` is written once, in `init`, before `self` is shared,
    //   and only read after (a `var` only because ChannelPipeline needs `self`).
    // - `activity` is read from any thread (`isActive`), so it sits behind its lock.
    // - Every other `var` (`peer`, `isOpen`, `isAutoRead`, `isReadPending`,
    //   `peerHasClosed`, `isDeliveryScheduled`, `received`, `receivedBytes`,
    //   `waiting`, `unflushed`) is read and written only on `eventLoop`:
    //   the ChannelCore methods run there (NIO's pipeline guarantees it; the
    //   writing ones assert it), `activate`/`setOption`/`getOption` submit to
    //   it, the other end reaches this one only through `eventLoop.execute`
    //   (`receive`, `peerClosed`), and `makePair` sets `peer` before either
    //   end is handed to anyone. This is how NIO's own channels are Sendable.

    @_spi(Receiver) public let eventLoop: any EventLoop
    @_spi(Receiver) public let allocator = ByteBufferAllocator()
    @_spi(Receiver) public let parent: (any Channel)? = nil
    @_spi(Receiver) public var localAddress: SocketAddress? { nil }
    @_spi(Receiver) public var remoteAddress: SocketAddress? { nil }
    @_spi(Receiver) public var _channelCore: any ChannelCore { self }
    @_spi(Receiver) public var closeFuture: EventLoopFuture<Void> { self.closePromise.futureResult }
    @_spi(Receiver) public var pipeline: ChannelPipeline { self.pipelineStorage }
    @_spi(Receiver) public var isWritable: Bool { self.isActive }
    @_spi(Receiver) public var isActive: Bool { self.activity.withLockedValue { $0 } }

    // Set once in init (it needs `self`), as EmbeddedChannel's is.
    private var pipelineStorage: ChannelPipeline!
    private let closePromise: EventLoopPromise<Void>
    private let activity = NIOLockedValueBox(false)
    /// The other end; cleared when either end closes.
    private var peer: InMemoryChannel?
    private var isOpen = true
    private var isAutoRead = true
    private var isReadPending = false
    private var peerHasClosed = false
    private var isDeliveryScheduled = false
    /// Bytes the other end flushed that this end holds, not read yet (their
    /// writes are complete), and how many.
    private var received = CircularBuffer<ByteBuffer>()
    private var receivedBytes = 0
    /// Writes of the other end that did not fit under ``bufferLimit``, in
    /// order: they complete when this end reads.
    private var waiting = CircularBuffer<(ByteBuffer, EventLoopPromise<Void>?)>()
    private var unflushed: [(ByteBuffer, EventLoopPromise<Void>?)] = []

    /// How many unread bytes an end holds before its peer's writes wait:
    /// about what a loopback socket's send and receive buffers hold.
    @_spi(Receiver) public static let bufferLimit = 256 * 1_024

    private init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
        self.closePromise = eventLoop.makePromise()
        self.pipelineStorage = nil
        self.pipelineStorage = ChannelPipeline(channel: self)
    }

    /// Two joined ends, the first on `first`, the second on `second` (the
    /// same loop is fine). Neither is registered or active yet: install
    /// each end's handlers on its loop, then ``activate()`` it.
    @_spi(Receiver) public static func makePair(on first: any EventLoop, and second: any EventLoop) -> (
        InMemoryChannel, InMemoryChannel
    ) {
        let one = InMemoryChannel(eventLoop: first)
        let other = InMemoryChannel(eventLoop: second)
        one.peer = other
        other.peer = one
        return (one, other)
    }

    /// Registers the end and makes it active, as a connected socket
    /// becomes: `channelRegistered`, `channelActive`, then a read if
    /// `autoRead` is on. An end whose peer has already closed is closed.
    @_spi(Receiver) public func activate() -> EventLoopFuture<Void> {
        self.eventLoop.submit {
            guard self.isOpen else { throw ChannelError.ioOnClosedChannel }
            self.pipeline.syncOperations.fireChannelRegistered()
            self.activity.withLockedValue { $0 = true }
            self.pipeline.syncOperations.fireChannelActive()
            if self.isAutoRead { self.pipeline.syncOperations.read() }
            self.scheduleDelivery()
        }
    }

    // MARK: Options

    @_spi(Receiver) public func setOption<Option: ChannelOption>(_ option: Option, value: Option.Value)
        -> EventLoopFuture<Void>
    {
        self.eventLoop.submit {
            // As NIO's sockets: turning it off stops reading at once, even a read
            // already asked for; turning it on reads again.
            if let autoRead = value as? Bool, option is ChannelOptions.Types.AutoReadOption,
                autoRead != self.isAutoRead
            {
                self.isAutoRead = autoRead
                if autoRead {
                    self.read0()
                } else {
                    self.isReadPending = false
                }
            }
        }
    }

    @_spi(Receiver) public func getOption<Option: ChannelOption>(_ option: Option) -> EventLoopFuture<Option.Value> {
        self.eventLoop.submit {
            guard option is ChannelOptions.Types.AutoReadOption, let value = self.isAutoRead as? Option.Value else {
                throw ChannelError.operationUnsupported
            }
            return value
        }
    }

    // MARK: ChannelCore (on the loop)

    @_spi(Receiver) public func localAddress0() throws -> SocketAddress { throw ChannelError.operationUnsupported }

    @_spi(Receiver) public func remoteAddress0() throws -> SocketAddress { throw ChannelError.operationUnsupported }

    @_spi(Receiver) public func register0(promise: EventLoopPromise<Void>?) {
        promise?.succeed(())
    }

    @_spi(Receiver) public func registerAlreadyConfigured0(promise: EventLoopPromise<Void>?) {
        promise?.succeed(())
    }

    @_spi(Receiver) public func bind0(to: SocketAddress, promise: EventLoopPromise<Void>?) {
        promise?.fail(ChannelError.operationUnsupported)
    }

    @_spi(Receiver) public func connect0(to: SocketAddress, promise: EventLoopPromise<Void>?) {
        promise?.fail(ChannelError.operationUnsupported)
    }

    @_spi(Receiver) public func write0(_ data: NIOAny, promise: EventLoopPromise<Void>?) {
        self.eventLoop.preconditionInEventLoop()
        guard self.isOpen else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        self.unflushed.append((self.unwrapData(data, as: ByteBuffer.self), promise))
    }

    @_spi(Receiver) public func flush0() {
        self.eventLoop.preconditionInEventLoop()
        let writes = self.unflushed
        self.unflushed = []
        guard let peer = self.peer else {
            for (_, promise) in writes { promise?.fail(ChannelError.ioOnClosedChannel) }
            return
        }
        peer.eventLoop.execute { peer.receive(writes) }
    }

    @_spi(Receiver) public func read0() {
        self.eventLoop.preconditionInEventLoop()
        guard self.isOpen else { return }
        self.isReadPending = true
        self.scheduleDelivery()
    }

    @_spi(Receiver) public func close0(error: any Error, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        self.eventLoop.preconditionInEventLoop()
        guard mode == .all else {
            promise?.fail(ChannelError.operationUnsupported)
            return
        }
        guard self.isOpen else {
            promise?.fail(ChannelError.alreadyClosed)
            return
        }
        self.isOpen = false
        let wasActive = self.activity.withLockedValue { active in
            defer { active = false }
            return active
        }
        for (_, pending) in self.unflushed { pending?.fail(ChannelError.ioOnClosedChannel) }
        self.unflushed = []
        // What the peer wrote and this end never read is lost, as unread bytes in a closed socket are.
        for (_, promise) in self.waiting { promise?.fail(ChannelError.ioOnClosedChannel) }
        self.waiting.removeAll()
        self.received.removeAll()
        self.receivedBytes = 0
        if let peer = self.peer {
            self.peer = nil
            peer.eventLoop.execute { peer.peerClosed() }
        }
        promise?.succeed(())
        if wasActive {
            self.pipeline.syncOperations.fireChannelInactive()
            self.pipeline.syncOperations.fireChannelUnregistered()
        }
        // Later, as NIO's channels do: the caller may still be walking the pipeline.
        self.eventLoop.execute {
            self.removeHandlers(pipeline: self.pipeline)
            self.closePromise.succeed(())
        }
    }

    @_spi(Receiver) public func triggerUserOutboundEvent0(_ event: Any, promise: EventLoopPromise<Void>?) {
        promise?.fail(ChannelError.operationUnsupported)
    }

    @_spi(Receiver) public func channelRead0(_ data: NIOAny) {
        // The end of the inbound pipeline: nothing left to do with it.
    }

    @_spi(Receiver) public func errorCaught0(error: any Error) {
        // The end of the inbound pipeline: the handlers above have seen it.
    }

    // MARK: Delivery (on the loop)

    /// Bytes the other end flushed, with its writes' promises.
    private func receive(_ writes: [(ByteBuffer, EventLoopPromise<Void>?)]) {
        guard self.isOpen else {
            for (_, promise) in writes { promise?.fail(ChannelError.ioOnClosedChannel) }
            return
        }
        // A socket's write is done once the kernel holds its bytes, not once
        // the peer reads them; one larger than the whole limit still goes into an empty buffer.
        for (bytes, promise) in writes {
            let size = bytes.readableBytes
            if self.waiting.isEmpty, self.receivedBytes == 0 || self.receivedBytes + size <= Self.bufferLimit {
                self.received.append(bytes)
                self.receivedBytes += size
                promise?.succeed(())
            } else {
                self.waiting.append((bytes, promise))
            }
        }
        self.scheduleDelivery()
    }

    /// The other end closed: end of file once what it sent has been read.
    private func peerClosed() {
        self.peerHasClosed = true
        self.peer = nil
        self.scheduleDelivery()
    }

    /// Delivers on a later turn of the loop, never inside the caller's own
    /// pipeline call (a socket's read is never re-entrant either).
    private func scheduleDelivery() {
        guard !self.isDeliveryScheduled else { return }
        self.isDeliveryScheduled = true
        self.eventLoop.execute { self.deliver() }
    }

    private func deliver() {
        self.isDeliveryScheduled = false
        guard self.isOpen, self.isActive else { return }
        if self.isReadPending, !self.received.isEmpty || !self.waiting.isEmpty {
            self.isReadPending = false
            // Everything held, then the writes that waited for room, which complete as they are read.
            while let bytes = self.received.popFirst() {
                self.receivedBytes -= bytes.readableBytes
                self.pipeline.syncOperations.fireChannelRead(NIOAny(bytes))
                guard self.isOpen else { return }
            }
            while let (bytes, promise) = self.waiting.popFirst() {
                promise?.succeed(())
                self.pipeline.syncOperations.fireChannelRead(NIOAny(bytes))
                guard self.isOpen else { return }
            }
            self.pipeline.syncOperations.fireChannelReadComplete()
            if self.isAutoRead, self.isOpen { self.pipeline.syncOperations.read() }
        }
        if self.peerHasClosed, self.received.isEmpty, self.waiting.isEmpty, self.isOpen {
            self.close0(error: ChannelError.eof, mode: .all, promise: nil)
        }
    }
}
