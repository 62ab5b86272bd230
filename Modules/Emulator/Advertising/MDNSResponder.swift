@_spi(Receiver) public import CastDiscovery
public import CastLogging
import Logging
import NIOConcurrencyHelpers
public import NIOCore
public import NIOPosix

/// The emulator's mDNS responder: advertises one Cast device or group as
/// `_googlecast._tcp` so browsers — ours, python-zeroconf, a phone — find it.
///
/// It announces on start (twice, a second apart, RFC 6762 §8.3), answers
/// queries by multicast, by unicast when the question asks (QU) and to
/// legacy queriers on other ports, leaves out answers the querier already
/// knows, re-announces on ``update(_:)``, says goodbye on ``stop(sendingGoodbye:)``,
/// and announces again any of its records another responder says goodbye to
/// (a group's records when its leader hands over, RFC 6762 §10.1).
/// It does not probe for name conflicts (the emulator owns its test network),
/// and it picks its interfaces and addresses once, at start.
///
/// Sockets are created on the event loop's thread, so they live in that
/// thread's network namespace.
public final class MDNSResponder: Sendable {
    /// How many queries the responder has heard and answered, and when it last answered.
    public struct Answers: Sendable, Hashable {
        /// Queries answered since ``start()``.
        public var count = 0
        /// Queries heard since ``start()``, answered or not (all their
        /// answers known); one whose known answers took several datagrams counts once.
        public var queries = 0
        /// When the last answer went out; `nil` before the first.
        public var last: ContinuousClock.Instant?
        /// Other responders' goodbyes to records of ours that were answered
        /// by announcing those records again (RFC 6762 §10.1).
        public var rescinded = 0
        /// Queries that asked for records of ours and got no answer because
        /// they listed every one of them as known (RFC 6762 §7.1; Open
        /// Screen's responder drops known answers the same way,
        /// discovery/mdns/impl/mdns_responder.cc:75–113). A count of what the
        /// responder already did, for tests to wait on: nothing it sends changed.
        public var suppressed = 0
    }

    private let eventLoop: any EventLoop
    private let runtime: NIOLoopBoundBox<ResponderRuntime>
    private let answered: NIOLockedValueBox<Answers>

    /// The queries answered so far: what a test waits for ("the browser
    /// asked again, and was answered") instead of waiting a fixed time.
    public var answers: Answers { self.answered.withLockedValue { $0 } }

    /// Creates a responder for `advertisement` on the selected interfaces; it is silent until ``start()``.
    public convenience init(
        advertisement: CastAdvertisement,
        interfaces: InterfaceSelection = .automatic(),
        addressFamilies: AddressFamilies = .all,
        port: Int = 5353,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: CastLogger = .shared
    ) {
        self.init(
            advertisements: [advertisement], interfaces: interfaces, addressFamilies: addressFamilies, port: port,
            eventLoopGroup: eventLoopGroup, logger: logger)
    }

    /// Creates one responder for many devices, as one host running many
    /// services answers for all of them from one socket per interface (as
    /// avahi-daemon does for every service a host registers; RFC 6762 §6
    /// lets a host answer for any of its records): each
    /// device's answer and announcement still goes in a datagram of its own,
    /// as separate devices send them. `cast-receiver --devices N` advertises
    /// so: N responders would each receive every other's multicast on the
    /// same host, a million datagrams to parse for a thousand devices.
    /// ``update(_:)`` replaces the first advertisement.
    public init(
        advertisements: [CastAdvertisement],
        interfaces: InterfaceSelection = .automatic(),
        addressFamilies: AddressFamilies = .all,
        port: Int = 5353,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: CastLogger = .shared
    ) {
        let eventLoop = eventLoopGroup.next()
        self.eventLoop = eventLoop
        let answered = NIOLockedValueBox(Answers())
        self.answered = answered
        self.runtime = NIOLoopBoundBox.makeBoxSendingValue(
            ResponderRuntime(
                advertisements: advertisements,
                answered: answered,
                interfaces: interfaces,
                addressFamilies: addressFamilies,
                port: port,
                eventLoop: eventLoop,
                logger: logger.makeLogger(subsystem: "Emulator.mDNS")
            ),
            as: ResponderRuntime.self,
            eventLoop: eventLoop
        )
    }

    /// Opens the sockets and announces.
    ///
    /// Throws ``CastEmulatorError/Code/invalidState`` when already started and
    /// ``CastEmulatorError/Code/bindFailed`` when no socket could be opened.
    public func start() async throws(CastEmulatorError) {
        let runtime = self.runtime
        do {
            try await self.eventLoop.flatSubmit { runtime.value.start(runtime: runtime) }.get()
        } catch let error as CastEmulatorError {
            throw error
        } catch {
            throw CastEmulatorError(.bindFailed, "cannot open an mDNS socket", cause: error)
        }
    }

    /// Replaces the advertisement and announces the change; a changed instance
    /// name first says goodbye to the old records.
    public func update(_ advertisement: CastAdvertisement) async {
        let runtime = self.runtime
        try? await self.eventLoop.submit { runtime.value.update(advertisement) }.get()
    }

    /// Stops answering and closes the sockets; with `sendingGoodbye` false the
    /// device vanishes silently, as a device losing power does, and browsers
    /// notice only when the records expire.
    public func stop(sendingGoodbye: Bool = true) async {
        let runtime = self.runtime
        try? await self.eventLoop.flatSubmit { runtime.value.stop(sendingGoodbye: sendingGoodbye) }.get()
    }
}

/// The responder's state, confined to its event loop.
final class ResponderRuntime {
    private var advertisements: [CastAdvertisement]
    private let answered: NIOLockedValueBox<MDNSResponder.Answers>
    private let interfaces: InterfaceSelection
    private let addressFamilies: AddressFamilies
    private let port: Int
    private let eventLoop: any EventLoop
    private let logger: Logger
    private var sockets: [MDNSSocket] = []
    private var announcements: [Scheduled<Void>] = []
    private var isRunning = false
    /// Queries whose known answers continue in more datagrams (TC set), by source, until the last comes.
    private var continuing: [String: (query: DNSMessage, deadline: Scheduled<Void>)] = [:]

    init(
        advertisements: [CastAdvertisement],
        answered: NIOLockedValueBox<MDNSResponder.Answers>,
        interfaces: InterfaceSelection,
        addressFamilies: AddressFamilies,
        port: Int,
        eventLoop: any EventLoop,
        logger: Logger
    ) {
        self.advertisements = advertisements
        self.answered = answered
        self.interfaces = interfaces
        self.addressFamilies = addressFamilies
        self.port = port
        self.eventLoop = eventLoop
        self.logger = logger
    }

    func start(runtime: NIOLoopBoundBox<ResponderRuntime>) -> EventLoopFuture<Void> {
        guard !self.isRunning else {
            return self.eventLoop.makeFailedFuture(
                CastEmulatorError(.invalidState, "the mDNS responder is already running"))
        }
        self.isRunning = true
        let receiver: MDNSSocket.Receiver = { message, source, interfaceIndex in
            runtime.value.answer(message, from: source, interfaceIndex: interfaceIndex)
        }
        var opening: [EventLoopFuture<MDNSSocket?>] = []
        for interface in NetworkInterface.all() where self.interfaces.includes(interface) {
            for family in [AddressFamilies.ipv4, .ipv6] where self.addressFamilies.contains(family) {
                let hasAddress = family == .ipv4 ? !interface.ipv4Addresses.isEmpty : !interface.ipv6Addresses.isEmpty
                guard hasAddress else { continue }
                let logger = self.logger
                opening.append(
                    MDNSSocket.open(
                        on: interface, family: family, port: self.port, eventLoop: self.eventLoop,
                        logger: self.logger, receiver: receiver
                    ).map { Optional($0) }.recover { error in
                        logger.warning(
                            "cannot open mDNS socket",
                            metadata: ["mdns.interface": "\(interface)", "error": "\(error)"])
                        return nil
                    }
                )
            }
        }
        return EventLoopFuture.whenAllSucceed(opening, on: self.eventLoop).assumeIsolated().flatMapThrowing { sockets in
            self.sockets = sockets.compactMap { $0 }
            guard !self.sockets.isEmpty else {
                self.isRunning = false
                throw CastEmulatorError(.bindFailed, "no mDNS socket could be opened on the selected interfaces")
            }
            self.logger.info(
                "advertising",
                metadata: [
                    "mdns.instance": "\(self.advertisements.first?.instanceName ?? "")",
                    "mdns.instances": "\(self.advertisements.count)", "mdns.sockets": "\(self.sockets.count)",
                ]
            )
            self.announce()
        }.nonisolated()
    }

    func update(_ advertisement: CastAdvertisement) {
        guard let old = self.advertisements.first else { return }
        self.advertisements[0] = advertisement
        guard self.isRunning else { return }
        if old.instanceName != advertisement.instanceName || old.hostName != advertisement.hostName {
            for socket in self.sockets { socket.send(self.records(of: old, for: socket).goodbye) }
        }
        self.announce()
    }

    func stop(sendingGoodbye: Bool) -> EventLoopFuture<Void> {
        guard self.isRunning else { return self.eventLoop.makeSucceededVoidFuture() }
        self.isRunning = false
        for announcement in self.announcements { announcement.cancel() }
        self.announcements = []
        for pending in self.continuing.values { pending.deadline.cancel() }
        self.continuing = [:]
        if sendingGoodbye {
            for socket in self.sockets {
                for advertisement in self.advertisements {
                    socket.send(self.records(of: advertisement, for: socket).goodbye)
                }
            }
        }
        let closing = self.sockets.map { $0.close() }
        self.sockets = []
        self.logger.info("advertising stopped", metadata: ["mdns.goodbye": "\(sendingGoodbye)"])
        return EventLoopFuture.andAllComplete(closing, on: self.eventLoop)
    }

    /// Announces now and once more a second later.
    private func announce() {
        for announcement in self.announcements { announcement.cancel() }
        self.sendAnnouncement()
        self.announcements = [
            self.eventLoop.assumeIsolated().scheduleTask(in: .seconds(1)) { self.sendAnnouncement() }
        ]
    }

    private func sendAnnouncement() {
        guard self.isRunning else { return }
        for socket in self.sockets {
            for advertisement in self.advertisements {
                socket.send(self.records(of: advertisement, for: socket).announcement)
            }
        }
    }

    /// Answers `query`; one whose known answers continue (TC, RFC 6762 §7.2)
    /// waits for the datagrams that follow from the same querier — until one
    /// without TC, or 500 ms — and is answered with all of them known. The
    /// RFC's responder waits 400–500 ms after a TC query (§7.2, §6); answering
    /// at the last datagram is this emulator's shortcut, which a querier
    /// cannot tell from a quick responder. python-zeroconf's browser, the
    /// independent querier the interop tests use, never sets TC, so its
    /// queries are answered as before.
    func answer(_ query: DNSMessage, from source: SocketAddress, interfaceIndex: Int) {
        guard self.isRunning else { return }
        guard !query.isResponse else { return self.rescindGoodbyes(in: query, interfaceIndex: interfaceIndex) }
        let key = "\(source)"
        var query = query
        if let pending = self.continuing.removeValue(forKey: key) {
            pending.deadline.cancel()
            query = DNSMessage(
                flags: query.flags, questions: pending.query.questions + query.questions,
                answers: pending.query.answers + query.answers)
        }
        // Bounded: a querier that never ends its list, or many at once, get their answer now.
        let canWait = query.answers.count < 4_096 && self.continuing.count < 64
        guard !query.isTruncated || !canWait else {
            let deadline = self.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(500)) {
                guard let pending = self.continuing.removeValue(forKey: key) else { return }
                var complete = pending.query
                complete.flags &= ~DNSMessage.truncatedFlag
                self.respond(to: complete, from: source, interfaceIndex: interfaceIndex)
            }
            self.continuing[key] = (query, deadline)
            return
        }
        query.flags &= ~DNSMessage.truncatedFlag
        self.respond(to: query, from: source, interfaceIndex: interfaceIndex)
    }

    /// Announces again, on the interface it was heard on, what another
    /// responder's goodbye names of ours (RFC 6762 §10.1).
    private func rescindGoodbyes(in response: DNSMessage, interfaceIndex: Int) {
        for socket in self.sockets where socket.interface.index == interfaceIndex {
            for advertisement in self.advertisements {
                guard let rescinding = self.records(of: advertisement, for: socket).rescinding(response) else {
                    continue
                }
                socket.send(rescinding)
                self.answered.withLockedValue { $0.rescinded += 1 }
            }
        }
    }

    private func respond(to query: DNSMessage, from source: SocketAddress, interfaceIndex: Int) {
        guard self.isRunning, let port = source.port else { return }
        self.answered.withLockedValue { $0.queries += 1 }
        // Reply through the socket of the interface and IP version the query came by; it knows that interface's addresses.
        guard
            let socket = self.sockets.first(where: {
                $0.interface.index == interfaceIndex && $0.groupAddress.protocol == source.protocol
            })
        else { return }
        let legacy = port != 5353
        let unicast = legacy || query.questions.contains { $0.prefersUnicastResponse }
        var answeredAny = false
        var knownAny = false
        for advertisement in self.advertisements {
            let records = self.records(of: advertisement, for: socket)
            guard let response = records.response(to: query, legacy: legacy) else {
                knownAny = knownAny || records.isAskedFor(by: query)
                continue
            }
            socket.send(response, to: unicast ? source : nil)
            answeredAny = true
        }
        guard answeredAny else {
            if knownAny { self.answered.withLockedValue { $0.suppressed += 1 } }
            return
        }
        self.answered.withLockedValue { answers in
            answers.count += 1
            answers.last = .now
        }
    }

    private func records(of advertisement: CastAdvertisement, for socket: MDNSSocket) -> AdvertisedRecords {
        AdvertisedRecords(
            advertisement,
            ipv4: socket.interface.ipv4Addresses,
            ipv6: socket.interface.ipv6Addresses
        )
    }
}
