/// Where a ``TerminalController`` draws and reads keys: the controlling
/// ``Terminal``, or anything else that shows lines of text (a test's
/// recording, another process's pseudo-terminal).
public protocol TerminalSurface: Sendable {
    /// Keys as they are typed; the controller quits when it finishes.
    var keys: AsyncStream<TerminalKey> { get }
    /// One element per change of size.
    var resizes: AsyncStream<Void> { get }
    /// Columns and rows.
    var size: (columns: Int, rows: Int) { get }
    /// Shows `lines` from the top left, each cut to the width, the rest cleared.
    func draw(_ lines: [String])
}
