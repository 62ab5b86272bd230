import Foundation

/// What every fuzz target shares: the entry point that runs one of them.
/// Built with `-sanitize=fuzzer -DFUZZING`, `cast-fuzz TARGET` runs
/// libFuzzer's driver on the target's function with the options and corpus
/// folders that follow; built normally it replays each file (or every file
/// of each directory) named after the target, so a corpus, or a crash
/// libFuzzer saved, is rerun with `swift run cast-fuzz TARGET FILE`.
enum FuzzReplay {
    /// The target's function, set once before libFuzzer starts.
    nonisolated(unsafe) static var target: ([UInt8]) -> Void = { _ in }

    /// Runs `body` on `arguments` (the command line after the target's
    /// name): libFuzzer under `FUZZING`, else the replayer. Returns the
    /// process's exit status.
    static func run(_ arguments: [String], _ body: @escaping ([UInt8]) -> Void) -> CInt {
        #if FUZZING
        Self.target = body
        // libFuzzer keeps argv for the whole run: the copies are never freed.
        var pointers: [UnsafeMutablePointer<CChar>?] = ([CommandLine.arguments[0]] + arguments).map { strdup($0) }
        pointers.append(nil)
        var count = CInt(pointers.count - 1)
        let argv = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: pointers.count)
        argv.initialize(from: pointers, count: pointers.count)
        var arguments = argv
        return runFuzzerDriver(&count, &arguments, fuzzOneInput)
        #else
        Self.main(arguments, body)
        return 0
        #endif
    }

    /// Runs `body` on every input file under `paths`; prints how many.
    static func main(_ paths: [String], _ body: ([UInt8]) -> Void) {
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
    static func messages(_ bytes: [UInt8], limit: Int = 16) -> [[UInt8]] {
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
