import Foundation

/// What every fuzz target shares. SwiftPM names an executable's entry point
/// `<module>_main` (and points `main` at it), so each target defines only
/// that, with `@_cdecl`, and calls ``run(_:_:_:)`` with its function: built
/// with `-sanitize=fuzzer -DFUZZING` it runs libFuzzer's driver on it;
/// built normally it replays each file (or every file of each directory)
/// named on its command line, so a corpus, or a crash libFuzzer saved, is
/// rerun with `swift run`.
public enum FuzzReplay {
    /// The target's function, set once before libFuzzer starts.
    nonisolated(unsafe) static var target: ([UInt8]) -> Void = { _ in }

    /// The entry point: libFuzzer under `FUZZING`, else the replayer.
    public static func run(
        _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, _ body: @escaping ([UInt8]) -> Void
    ) -> CInt {
        #if FUZZING
        Self.target = body
        var count = argc
        var arguments = argv
        return runFuzzerDriver(&count, &arguments, fuzzOneInput)
        #else
        Self.main(Array(CommandLine.arguments.dropFirst()), body)
        return 0
        #endif
    }

    /// Runs `body` on every input file under `paths`; prints how many.
    public static func main(_ paths: [String], _ body: ([UInt8]) -> Void) {
        var files: [URL] = []
        for path in paths {
            let url = URL(fileURLWithPath: path)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                let contents = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                files += contents.sorted().map { url.appendingPathComponent($0) }
            } else {
                files.append(url)
            }
        }
        for file in files {
            guard let data = try? Data(contentsOf: file) else { continue }
            body(Array(data))
        }
        print("replayed \(files.count) inputs")
    }

    /// `bytes` cut at every 0x00 into up to `limit` pieces: one input, several messages.
    public static func messages(_ bytes: [UInt8], limit: Int = 16) -> [[UInt8]] {
        Array(bytes.split(separator: 0, maxSplits: limit - 1, omittingEmptySubsequences: false).map(Array.init))
    }
}

#if FUZZING
/// libFuzzer's driver (compiler-rt FuzzerInterface.h).
@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// What libFuzzer calls with each input.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzReplay.target(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}
#endif
