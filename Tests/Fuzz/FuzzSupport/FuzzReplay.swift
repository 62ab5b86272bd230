import Foundation

/// What every fuzz target shares: built with `-sanitize=fuzzer` (and
/// `-DFUZZING`) libFuzzer calls `LLVMFuzzerTestOneInput`; built normally,
/// the target is a replayer that runs each file (or every file of each
/// directory) named on its command line through the same function, so a
/// corpus, or a crash libFuzzer saved, is rerun with `swift run`.
public enum FuzzReplay {
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
