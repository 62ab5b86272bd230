import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The controlling terminal in raw mode on the alternate screen: keys in,
/// frames out, its size, and its resizes. Everything is put back as it was
/// by ``restore()``.
//
// @unchecked Sendable: `original` is the one `var` (tcgetattr needs it
// inout); it is written once in `init`, before the object is shared, and
// only read after (by `restore()`). Everything else is a `let` of a
// Sendable type (stream continuations, the dispatch signal source, whose
// handler only yields). The reader thread captures only the keys'
// continuation, never `self`.
public final class Terminal: TerminalSurface, @unchecked Sendable {
    private var original = termios()
    private let resize: any DispatchSourceSignal
    private let keysContinuation: AsyncStream<TerminalKey>.Continuation
    /// Keys as they are typed; finished when standard input closes.
    public let keys: AsyncStream<TerminalKey>
    private let resizesContinuation: AsyncStream<Void>.Continuation
    /// One element per window resize.
    public let resizes: AsyncStream<Void>

    /// Takes the terminal: raw mode (no echo, no line buffering, no signals
    /// from keys), the alternate screen, the cursor hidden.
    ///
    /// - Throws: ``TerminalError`` when standard input is not a terminal.
    public init() throws(TerminalError) {
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &self.original) == 0 else {
            throw TerminalError(.notATerminal, "a full-screen controller reads keys from one")
        }
        var raw = self.original
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        (self.keys, self.keysContinuation) = AsyncStream.makeStream(
            of: TerminalKey.self, bufferingPolicy: .bufferingNewest(64))
        (self.resizes, self.resizesContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
        signal(SIGWINCH, SIG_IGN)
        self.resize = DispatchSource.makeSignalSource(signal: SIGWINCH, queue: .global())
        let resizes = self.resizesContinuation
        self.resize.setEventHandler { resizes.yield() }
        self.resize.resume()
        Self.write("\u{1B}[?1049h\u{1B}[?25l")
        let keys = self.keysContinuation
        let reader = Thread {
            var buffer = [UInt8](repeating: 0, count: 64)
            while true {
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                guard count > 0 else { break }
                for key in TerminalKey.parse(buffer[0..<count]) { keys.yield(key) }
            }
            keys.finish()
        }
        reader.name = "cast.ui.keys"
        reader.start()
    }

    /// Gives the terminal back as it was.
    public func restore() {
        self.resize.cancel()
        Self.write("\u{1B}[?25h\u{1B}[?1049l")
        tcsetattr(STDIN_FILENO, TCSANOW, &self.original)
    }

    /// Columns and rows; 80×24 when the terminal does not say.
    public var size: (columns: Int, rows: Int) {
        var window = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 else {
            return (80, 24)
        }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    /// Draws `lines` from the top left, each cut to the width and the rest of
    /// the screen cleared, in one write.
    public func draw(_ lines: [String]) {
        let (columns, rows) = self.size
        var frame = "\u{1B}[H"
        for line in lines.prefix(rows) {
            frame += String(line.prefix(columns)) + "\u{1B}[K\r\n"
        }
        frame += "\u{1B}[J"
        Self.write(frame)
    }

    private static func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
