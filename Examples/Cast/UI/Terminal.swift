import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A key the controller acts on.
enum Key: Equatable, Sendable {
    case up, down, left, right, enter, escape
    case character(Character)
}

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
final class Terminal: @unchecked Sendable {
    private var original = termios()
    private let resize: any DispatchSourceSignal
    private let keysContinuation: AsyncStream<Key>.Continuation
    /// Keys as they are typed.
    let keys: AsyncStream<Key>
    private let resizesContinuation: AsyncStream<Void>.Continuation
    /// One element per window resize.
    let resizes: AsyncStream<Void>

    /// Takes the terminal: raw mode (no echo, no line buffering, no signals
    /// from keys), the alternate screen, the cursor hidden.
    ///
    /// - Throws: ``CommandFailure`` when standard input is not a terminal.
    init() throws {
        guard isatty(STDIN_FILENO) == 1, tcgetattr(STDIN_FILENO, &self.original) == 0 else {
            throw CommandFailure(.badInput, "cast ui needs a terminal")
        }
        var raw = self.original
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG | IEXTEN)
        raw.c_iflag &= ~tcflag_t(IXON | ICRNL)
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        (self.keys, self.keysContinuation) = AsyncStream.makeStream(of: Key.self, bufferingPolicy: .bufferingNewest(64))
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
                for key in Self.parse(buffer[0..<count]) { keys.yield(key) }
            }
            keys.finish()
        }
        reader.name = "cast.ui.keys"
        reader.start()
    }

    /// Gives the terminal back as it was.
    func restore() {
        self.resize.cancel()
        Self.write("\u{1B}[?25h\u{1B}[?1049l")
        tcsetattr(STDIN_FILENO, TCSANOW, &self.original)
    }

    /// Columns and rows; 80×24 when the terminal does not say.
    var size: (columns: Int, rows: Int) {
        var window = winsize()
        guard ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0, window.ws_col > 0, window.ws_row > 0 else {
            return (80, 24)
        }
        return (Int(window.ws_col), Int(window.ws_row))
    }

    /// Draws `lines` from the top left, each cut to the width and the rest of
    /// the screen cleared, in one write.
    func draw(_ lines: [String]) {
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

    /// The keys in what one read returned: arrows as their escape sequences, the rest byte by byte.
    static func parse(_ bytes: ArraySlice<UInt8>) -> [Key] {
        var keys: [Key] = []
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == 0x1B, index + 2 < bytes.endIndex, bytes[index + 1] == UInt8(ascii: "[") {
                switch bytes[index + 2] {
                case UInt8(ascii: "A"): keys.append(.up)
                case UInt8(ascii: "B"): keys.append(.down)
                case UInt8(ascii: "C"): keys.append(.right)
                case UInt8(ascii: "D"): keys.append(.left)
                default: break
                }
                index += 3
                continue
            }
            switch byte {
            case 0x1B: keys.append(.escape)
            case 0x0D, 0x0A: keys.append(.enter)
            case 0x03: keys.append(.character("q"))  // Ctrl-C quits, as q does
            default: keys.append(.character(Character(Unicode.Scalar(byte))))
            }
            index += 1
        }
        return keys
    }
}
