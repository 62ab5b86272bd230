@_spi(Receiver) import CastDiscovery
import Foundation
import NIOCore

/// DNS message decoding, then the browser taking the message in as a
/// response heard on a LAN interface: the device list it builds.
func fuzzDNSMessage(_ bytes: [UInt8]) {
    guard let message = try? DNSMessage(decoding: bytes) else { return }
    var engine = BrowserEngine(
        serviceType: DNSName("_googlecast._tcp.local"), scanMode: .active,
        timing: BrowserEngine.Timing(
            startDelay: { .zero }, activeMaximumQueryInterval: .seconds(8), passiveMaximumQueryInterval: .seconds(64)),
        cache: RecordCache(capacity: 64, jitter: { 0 }))
    let now = NIODeadline.uptimeNanoseconds(1_000_000_000)
    let lan = AddressScope(
        isLoopback: false,
        subnets: [AddressScope.Subnet(address: IPAddress.V4("10.0.0.2")!, netmask: IPAddress.V4("255.255.255.0")!)])
    engine.addInterface(index: 2, name: "eth0", scope: lan, now: now)
    _ = engine.receive(message, interfaceIndex: 2, sourcePort: 5353, now: now)
    _ = engine.advance(to: now + .seconds(200))
    _ = try? message.encoded()
}
