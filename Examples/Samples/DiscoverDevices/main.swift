// Sample: discovery only. Embeds CastDiscovery (and CastLogging, which it
// uses) and nothing else: lists Cast devices on one interface for a while.
//
//   swift run sample-discover-devices INTERFACE [SECONDS]
//
// Discovery multicasts on the interface you name: on a shared machine use
// loopback (`lo`) or an interface inside a network namespace.

import CastDiscovery
import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard let interface = arguments.first else {
    FileHandle.standardError.write(Data("usage: sample-discover-devices INTERFACE [SECONDS]\n".utf8))
    exit(64)
}
let seconds = arguments.dropFirst().first.flatMap(Double.init) ?? 5

let discovery = DiscoveryManager(configuration: DiscoveryConfiguration(interfaces: .named([interface])))
let events = discovery.events()
try await discovery.start()
let listing = Task {
    for await event in events {
        switch event {
        case .found(let device): print("found   \(device)")
        case .updated(let device, _): print("updated \(device)")
        case .lost(let device, _): print("lost    \(device.friendlyName)")
        }
    }
}
try await Task.sleep(for: .milliseconds(Int(seconds * 1_000)))
await discovery.stop()
listing.cancel()
print("\(discovery.devices.count) device(s) at the end")
