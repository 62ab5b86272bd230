/// A benchmark's setup failed; the benchmark reports it instead of a figure.
public struct BenchmarkSupportError: Error, CustomStringConvertible {
    /// What failed.
    public let description: String

    /// Creates an error.
    public init(description: String) {
        self.description = description
    }
}
