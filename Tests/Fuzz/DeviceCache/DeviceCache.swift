import CastCapture
@_spi(Receiver) import CastDiscovery
import CastStreaming
import Foundation

/// What a user or another process can put in front of discovery's unicast
/// side: the device cache file (read back, then written and read again when
/// it parsed), and a scan range, a device's address, a picture size, a
/// latency and a capture source typed on the command line (each that parsed
/// reads back the same from its own text).
func fuzzDeviceCache(_ bytes: [UInt8]) {
    if let entries = DeviceCache.decode(Data(bytes)) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        if let again = try? encoder.encode(entries), DeviceCache.decode(again) != entries {
            fatalError("a cache file that parsed did not survive its own round trip")
        }
    }
    if let network = IPv4Network(String(decoding: bytes.prefix(64), as: UTF8.self)),
        network.prefixLength >= IPv4Network.shortestScannablePrefix
    {
        let hosts = network.hosts
        guard hosts.allSatisfy({ IPv4Network(address: $0, prefixLength: network.prefixLength) == network }) else {
            fatalError("\(network) lists a host outside itself")
        }
    }
    let typed = String(decoding: bytes.prefix(80), as: UTF8.self)
    if let address = CastDeviceAddress(typed), CastDeviceAddress(address.description) != address {
        fatalError("\(address) does not read back as itself")
    }
    if let size = RemoteDisplayConfiguration.Resolution(typed),
        RemoteDisplayConfiguration.Resolution(size.description) != size
    {
        fatalError("\(size) does not read back as itself")
    }
    if let latency = RemoteDisplayConfiguration.Latency(typed),
        RemoteDisplayConfiguration.Latency(latency.description) != latency
    {
        fatalError("\(latency) does not read back as itself")
    }
    if let source = CaptureSource(typed), CaptureSource(source.description) != source {
        fatalError("\(source) does not read back as itself")
    }
}
