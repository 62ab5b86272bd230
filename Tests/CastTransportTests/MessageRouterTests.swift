import CastLogging
import Testing

@_spi(Receiver) @testable import CastTransport

@Suite(.timeLimit(.minutes(3))) struct MessageRouterTests {
    static let logger = CastLogger(filter: CastLogFilter(minimumLevel: .none)).makeLogger(subsystem: "Test")

    static func message(_ namespace: String, from source: String, to destination: String) -> CastMessage {
        CastMessage(namespace: namespace, sourceID: source, destinationID: destination, payload: .string("{}"))
    }

    @Test func routesByNamespaceSourceAndDestinationWithBroadcastsToAll() async {
        let router = MessageRouter(bufferLimit: 16, logger: Self.logger)
        let media = router.subscribe(MessageFilter(namespace: "media", destinationID: "sender-1"))
        let fromApp = router.subscribe(MessageFilter(namespace: "media", sourceID: "app-7"))
        let receiver = router.subscribe(MessageFilter(namespace: "receiver"))

        let toUs = Self.message("media", from: "app-7", to: "sender-1")
        let toOther = Self.message("media", from: "app-8", to: "sender-2")
        let broadcast = Self.message("media", from: "app-7", to: "*")
        let status = Self.message("receiver", from: "receiver-0", to: "sender-1")
        #expect(router.route(toUs) == 2)
        #expect(router.route(toOther) == 0)
        #expect(router.route(broadcast) == 2)
        #expect(router.route(status) == 1)
        router.finish()

        #expect(await Array(media) == [toUs, broadcast])
        #expect(await Array(fromApp) == [toUs, broadcast])
        #expect(await Array(receiver) == [status])
    }

    @Test func subscriptionsAfterFinishEndAtOnce() async {
        let router = MessageRouter(bufferLimit: 16, logger: Self.logger)
        router.finish()
        let late = router.subscribe(MessageFilter(namespace: "x"))
        #expect(router.route(Self.message("x", from: "a", to: "b")) == 0)
        #expect(await Array(late).isEmpty)
    }

    @Test func aSlowSubscriberLosesOnlyWhatExceedsItsBuffer() async {
        let router = MessageRouter(bufferLimit: 2, logger: Self.logger)
        let slow = router.subscribe(MessageFilter(namespace: "x"))
        let messages = (0..<4).map { Self.message("x", from: "a", to: "b-\($0)") }
        #expect(messages.map { router.route($0) } == [1, 1, 0, 0])
        router.finish()
        #expect(await Array(slow) == Array(messages.prefix(2)))
    }
}

extension Array {
    /// Collects a finite async sequence.
    init<S: AsyncSequence>(_ sequence: S) async where S.Element == Element, S.Failure == Never {
        var elements: [Element] = []
        for await element in sequence {
            elements.append(element)
        }
        self = elements
    }
}
