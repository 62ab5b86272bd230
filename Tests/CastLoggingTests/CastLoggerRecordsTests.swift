import CastLogging
import Logging
import Testing

@Suite(.timeLimit(.minutes(3))) struct CastLoggerRecordsTests {
    @Test func severalSubscribersEachGetEveryRecord() async {
        let hub = CastLogger(filter: CastLogFilter(minimumLevel: .debug))
        let first = hub.records()
        let second = hub.records()
        let logger = hub.makeLogger(subsystem: "Discovery")
        logger.debug("found")
        logger.trace("filtered out")
        logger.warning("lost")

        var firstMessages: [String] = []
        for await record in first {
            firstMessages.append(record.message)
            if firstMessages.count == 2 { break }
        }
        var secondMessages: [String] = []
        for await record in second {
            secondMessages.append(record.message)
            if secondMessages.count == 2 { break }
        }
        #expect(firstMessages == ["found", "lost"])
        #expect(secondMessages == ["found", "lost"])
    }

    @Test func aSubscriptionIsASinkOnlyWhileItLasts() async {
        let hub = CastLogger()
        let logger = hub.makeLogger(subsystem: "Kit")
        let counter = EvaluationCounter()
        do {
            let records = hub.records()
            logger.info("\(counter.message("while subscribed"))")
            var iterator = records.makeAsyncIterator()
            #expect(await iterator.next()?.message == "while subscribed")
        }
        // The stream and its iterator are gone: the hub has no sink again and
        // stops building messages.
        logger.info("\(counter.message("after"))")
        #expect(counter.value == 1)
    }

    @Test func cancellingTheConsumerEndsTheSubscription() async {
        let hub = CastLogger()
        let records = hub.records()
        let consumer = Task {
            var count = 0
            for await _ in records { count += 1 }
            return count
        }
        hub.makeLogger(subsystem: "Kit").info("one")
        consumer.cancel()
        #expect(await consumer.value <= 1)
        let counter = EvaluationCounter()
        hub.makeLogger(subsystem: "Kit").info("\(counter.message("unobserved"))")
        #expect(counter.value == 0)
    }

    @Test func boundedSubscriptionKeepsTheNewest() async {
        let hub = CastLogger()
        let records = hub.records(bufferingPolicy: .bufferingNewest(2))
        let logger = hub.makeLogger(subsystem: "Kit")
        for index in 0..<5 {
            logger.info("\(index)")
        }
        var iterator = records.makeAsyncIterator()
        #expect(await iterator.next()?.message == "3")
        #expect(await iterator.next()?.message == "4")
    }
}
