extension CastLogger {
    /// Admitted records as an asynchronous sequence, for one subscriber.
    ///
    /// Each call makes an independent subscription that receives every record
    /// admitted from the moment of the call (before the first `next()`), so
    /// several subscribers each see every record. The subscription counts as
    /// a sink while it lasts, and ends when its iterating task is cancelled or
    /// the sequence is dropped.
    ///
    /// ```swift
    /// for await record in CastLogger.shared.records() where record.level >= .warning {
    ///     report(record)
    /// }
    /// ```
    ///
    /// - Parameter bufferingPolicy: what to keep while the subscriber is
    ///   behind. The default keeps everything; pass
    ///   `.bufferingNewest(n)` to bound memory for a slow consumer.
    public func records(
        bufferingPolicy: AsyncStream<CastLogRecord>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<CastLogRecord> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: CastLogRecord.self,
            bufferingPolicy: bufferingPolicy
        )
        let token = self.addSink(ClosureLogSink { record in continuation.yield(record) })
        continuation.onTermination = { [weak self] _ in
            self?.removeSink(token)
        }
        return stream
    }
}
