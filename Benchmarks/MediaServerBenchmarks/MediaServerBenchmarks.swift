// CastMediaServer's throughput and seek latency on the loopback, against
// Python's http.server and nginx serving the same file in the same run:
// curl (its own process) fetches a 1 GiB file whole, and 64 KiB at 768 MiB
// (a seek's first bytes; Python's http.server has no byte ranges, so the
// seek is timed against nginx only). Read the ratios ours ÷ python and ours ÷ nginx
// from the table. nginx is skipped when it is not installed.

import Benchmark
import BenchmarkSupport
import CastMediaServer
import Foundation

/// Runs curl with `arguments`, waiting for it; stops the run when the
/// answer is not `status` with `size` bytes (any size when negative): a
/// benchmark of failures measures nothing.
func curl(_ arguments: [String], expecting status: Int, size: Int) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    process.arguments = ["-s", "-o", "/dev/null", "-w", "%{http_code} %{size_download}"] + arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try? process.run()
    let said = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard size < 0 ? said.hasPrefix("\(status) ") : said == "\(status) \(size)" else {
        print(
            "media-server benchmark: curl \(arguments.joined(separator: " ")): expected \(status) \(size), got \(said)")
        exit(1)
    }
}

/// Waits until something answers at `url` (up to 5 s).
func waitForServer(_ url: String) {
    for _ in 0..<100 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-o", "/dev/null", "--max-time", "1", "-r", "0-0", url]
        try? process.run()
        process.waitUntilExit()
        if process.terminationStatus == 0 { return }
        usleep(50_000)
    }
}

/// The servers of this process, kept for its whole life.
// nonisolated(unsafe): appended to once, by the `benchmarks` closure on the
// main thread before any benchmark runs, and never read — it only holds them.
nonisolated(unsafe) var runningServers: [MediaServer] = []

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock], maxDuration: .seconds(10), maxIterations: 8)
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("media-bench-\(getpid())")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let file = folder.appendingPathComponent("film.mp4")
    // 1 GiB, sparse: every server reads the same pages from the page cache.
    guard FileManager.default.createFile(atPath: file.path, contents: nil),
        let handle = try? FileHandle(forWritingTo: file), (try? handle.truncate(atOffset: 1 << 30)) != nil
    else {
        print("media-server benchmarks skipped: cannot make the test file")
        return
    }
    try? handle.close()
    let seek = ["-r", "\(768 << 20)-\((768 << 20) + 65_535)"]

    var servers: [(name: String, url: String)] = []
    let semaphore = DispatchSemaphore(value: 0)
    // Held for the whole run: a MediaServer dropped stops serving.
    nonisolated(unsafe) var ours: (MediaServer, URL)?
    Task {
        if let server = try? await MediaServer.start(toward: "127.0.0.1"), let url = try? server.serve(file: file) {
            ours = (server, url)
        }
        semaphore.signal()
    }
    semaphore.wait()
    if let (server, url) = ours {
        runningServers.append(server)
        servers.append(("CastMediaServer", url.absoluteString))
    }

    let pythonPort = 18_000 + Int(getpid() % 1_000) * 2
    if (try? SupervisedServer(
        "/usr/bin/python3 -m http.server \(pythonPort) --bind 127.0.0.1 --directory '\(folder.path)'")) != nil
    {
        servers.append(("python http.server", "http://127.0.0.1:\(pythonPort)/film.mp4"))
    }
    let nginxPort = pythonPort + 1
    if FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") {
        let configuration = folder.appendingPathComponent("nginx.conf")
        let text = """
            daemon off; master_process off; worker_processes 1; pid \(folder.path)/nginx.pid;
            error_log \(folder.path)/nginx.log; events { worker_connections 64; }
            http { access_log off; sendfile on; client_body_temp_path \(folder.path); proxy_temp_path \(folder.path);
                fastcgi_temp_path \(folder.path); uwsgi_temp_path \(folder.path); scgi_temp_path \(folder.path);
                server { listen 127.0.0.1:\(nginxPort); root \(folder.path); } }
            """
        if (try? text.write(to: configuration, atomically: true, encoding: .utf8)) != nil,
            (try? SupervisedServer("/usr/sbin/nginx -c '\(configuration.path)'")) != nil
        {
            servers.append(("nginx", "http://127.0.0.1:\(nginxPort)/film.mp4"))
        }
    }
    for (name, url) in servers {
        waitForServer(url)
        Benchmark("1 GiB whole: \(name)") { benchmark in
            for _ in benchmark.scaledIterations { curl([url], expecting: 200, size: 1 << 30) }
        }
        guard name != "python http.server" else { continue }
        Benchmark("seek, 64 KiB at 768 MiB: \(name)") { benchmark in
            for _ in benchmark.scaledIterations { curl(seek + [url], expecting: 206, size: 65_536) }
        }
    }
    segmentBenchmarks(in: folder)
}
