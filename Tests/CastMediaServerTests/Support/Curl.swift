import CastTestSupport
import Foundation

/// What an independent HTTP client got: the status, the headers (names in
/// lower case) and the body.
struct Fetched: Sendable {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
}

/// curl, as an independent client: `arguments` are added to its command
/// line; `namespace` runs it inside a network namespace.
func curl(_ url: String, _ arguments: [String] = [], in namespace: String? = nil) async throws -> Fetched {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let headers = folder.appendingPathComponent("headers").path
    let body = folder.appendingPathComponent("body").path
    let command =
        (namespace.map { ["/usr/sbin/ip", "netns", "exec", $0] } ?? [])
        + ["/usr/bin/curl", "-sS", "--max-time", "20", "-D", headers, "-o", body] + arguments + [url]
    _ = try await onOwnThread { try NamespacePair.run(command) }
    let headerText = (try? String(contentsOfFile: headers, encoding: .utf8)) ?? ""
    // With -D, every response's headers; the last block is the final one.
    let blocks = headerText.components(separatedBy: "\r\n\r\n").filter { !$0.isEmpty }
    let lines = (blocks.last ?? "").components(separatedBy: "\r\n")
    let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first.flatMap { Int($0) } } ?? 0
    var fields: [String: String] = [:]
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    let bytes = (try? Data(contentsOf: URL(fileURLWithPath: body))).map { [UInt8]($0) } ?? []
    return Fetched(status: status, headers: fields, body: bytes)
}

/// Python's http.client, a second independent client: a GET with `range`
/// (none when `nil`); the status, Content-Range and body length.
func pythonGet(_ url: URL, range: String?) async throws -> (status: Int, contentRange: String?, length: Int) {
    let script = """
        import http.client, sys, urllib.parse
        url = urllib.parse.urlsplit(sys.argv[1])
        connection = http.client.HTTPConnection(url.hostname, url.port, timeout=20)
        headers = {"Range": sys.argv[2]} if len(sys.argv) > 2 else {}
        connection.request("GET", url.path, headers=headers)
        response = connection.getresponse()
        body = response.read()
        print(response.status, response.getheader("Content-Range") or "-", len(body), sep="|")
        """
    let output = try await onOwnThread {
        try NamespacePair.run(["/usr/bin/python3", "-c", script, url.absoluteString] + (range.map { [$0] } ?? []))
    }
    let fields = output.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|").map(String.init)
    guard fields.count == 3 else { return (0, nil, -1) }
    return (Int(fields[0]) ?? 0, fields[1] == "-" ? nil : fields[1], Int(fields[2]) ?? -1)
}
