import CastMediaServer
import CastTestSupport
import Foundation
import Testing

/// The server binds to the address of the route toward the device: this
/// process's namespace gets two links, to two device namespaces on two
/// subnets made for the test (deleting a namespace deletes its link); the
/// server for the second device must take the second link's address, and
/// that device must reach it.
@Suite(.timeLimit(.minutes(10)), .enabled(if: NamespacePair.isAvailable, "needs root and ip(8) for network namespaces"))
struct RouteTests {
    @Test func theServerBindsToTheAddressTowardTheDevice() async throws {
        let tag = "\(getpid())x\(Int.random(in: 0..<1_000_000))"
        let devices = ["castD\(tag)a", "castD\(tag)b"]
        let subnet = Int.random(in: 1..<200)
        defer {
            for namespace in devices { _ = try? NamespacePair.ip("netns", "del", namespace) }
        }
        // Link n: here cmh<n> 10.(210+n).subnet.1 ↔ device d<n> 10.(210+n).subnet.2.
        for (index, device) in devices.enumerated() {
            let prefix = "10.\(210 + index).\(subnet)"
            let local = "cm\(tag.suffix(6))\(index)"
            try NamespacePair.ip("netns", "add", device)
            try NamespacePair.ip("-n", device, "link", "set", "lo", "up")
            try NamespacePair.ip("link", "add", local, "type", "veth", "peer", "name", "d\(index)", "netns", device)
            try NamespacePair.ip("addr", "add", "\(prefix).1/24", "dev", local)
            try NamespacePair.ip("-n", device, "addr", "add", "\(prefix).2/24", "dev", "d\(index)")
            try NamespacePair.ip("link", "set", local, "up")
            try NamespacePair.ip("-n", device, "link", "set", "d\(index)", "up")
        }
        let server = try await MediaServer.start(toward: "10.211.\(subnet).2")
        #expect(server.host == "10.211.\(subnet).1")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("route-\(UUID().uuidString).mp3")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(repeating: 42, count: 4_096).write(to: file)
        let url = try server.serve(file: file)
        // The device it was started toward fetches it; the other one has no route there.
        let fetched = try await curl(url.absoluteString, in: devices[1])
        #expect(fetched.status == 200)
        #expect(fetched.body.count == 4_096)
        await #expect(throws: (any Error).self) {
            try await curl(url.absoluteString, ["--max-time", "3"], in: devices[0])
        }
        // Toward the first device: the first link's address.
        let other = try await MediaServer.start(toward: "10.210.\(subnet).2")
        #expect(other.host == "10.210.\(subnet).1")
        await other.stop()
        await server.stop()
    }
}
