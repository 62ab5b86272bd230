import CastTestSupport
import NIOCore
import Testing

@testable import CastMediaServer

/// The address local media is served from is the one on the device's link,
/// with a VPN holding the default route and a Docker bridge up beside it
/// (the most repeated complaint about the tools people use today: catt#338,
/// castnow#203, mkchromecast#205). In network namespaces: the sender's has
/// the veth link toward the device's, a `vpn0` with the default route and a
/// bridge `docker0`.
@Suite(
    .timeLimit(.minutes(1)),
    .enabled(if: NamespacePair.isAvailable, "needs root and iproute2 to create network namespaces"))
struct LocalRouteTests {
    @Test func theDevicesLinkIsChosenOverAVPNsDefaultRouteAndABridge() async throws {
        try await NamespacePair.with { pair in
            let sender = pair.a
            for command in [
                // A VPN's interface: a veth whose peer stays in the namespace (this kernel has no
                // dummy driver; a tun device without its VPN process has no carrier).
                ["link", "add", "vpn0", "type", "veth", "peer", "name", "vpn0peer"], ["link", "set", "vpn0peer", "up"],
                ["addr", "add", "10.8.0.2/24", "dev", "vpn0"], ["link", "set", "vpn0", "up"],
                ["route", "add", "default", "dev", "vpn0"],
                ["link", "add", "docker0", "type", "bridge"], ["addr", "add", "172.17.0.1/16", "dev", "docker0"],
                ["link", "set", "docker0", "up"],
            ] {
                try NamespacePair.run(["/usr/sbin/ip", "-n", sender] + command)
            }
            let group = try pair.eventLoopGroup(in: sender)
            do {
                try await Self.check(on: group.next(), pair)
            } catch {
                try? await group.shutdownGracefully()
                throw error
            }
            try await group.shutdownGracefully()
        }
    }

    private static func check(on loop: any EventLoop, _ pair: NamespacePair) async throws {
        let sender = pair.a
        // The device on the LAN: the address on the veth link, not the VPN's nor the bridge's.
        let towardDevice = try await loop.submit { LocalRoute.address(toward: pair.ipv4(pair.b)) }.get()
        #expect(towardDevice == pair.ipv4(sender))
        let towardDevice6 = try await loop.submit { LocalRoute.address(toward: pair.ipv6(pair.b)) }.get()
        #expect(towardDevice6 == pair.ipv6(sender))
        // A device only the VPN reaches is served on the VPN's address.
        #expect(try await loop.submit { LocalRoute.address(toward: "203.0.113.5") }.get() == "10.8.0.2")

        // No route at all: the failure names every interface there is.
        try NamespacePair.run(["/usr/sbin/ip", "-n", sender, "route", "del", "default"])
        #expect(try await loop.submit { LocalRoute.address(toward: "203.0.113.5") }.get() == nil)
        let sentence = try await loop.submit { LocalRoute.unreachable("203.0.113.5") }.get()
        #expect(sentence.hasPrefix("no local address routes toward 203.0.113.5; this machine's interfaces are "))
        for part in ["vA (\(pair.ipv4(sender)), ", "vpn0 (10.8.0.2", "docker0 (172.17.0.1"] {
            #expect(sentence.contains(part), "\(sentence)")
        }
        #expect(!sentence.contains("lo ("), "\(sentence)")
    }
}
