// Sample: a custom-channel sender. Embeds CastChannels and CastDiscovery:
// connects to a receiver, launches an app, and talks JSON with it on the
// app's own namespace — the way a game or a companion app would.
//
//   swift run sample-custom-channel HOST PORT APPID NAMESPACE 'JSON'

import CastChannels
import CastDiscovery
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 5, let port = Int(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: sample-custom-channel HOST PORT APPID NAMESPACE JSON\n".utf8))
    exit(64)
}
let (host, appID, namespace, text) = (arguments[0], arguments[2], arguments[3], arguments[4])

// 1. A TLS connection with the platform's receiver channel attached.
guard let address = IPAddress(host) else {
    FileHandle.standardError.write(Data("sample-custom-channel: HOST must be an IP address\n".utf8))
    exit(64)
}
let link = try await CastDeviceLink.connect(to: CastDevice(knownHost: address, port: port))

// 2. The app, and our channel on its transport.
let application = try await link.receiver.launch(appID: appID)
let channel = try CastChannel(namespace: namespace)
try await link.join(application, attaching: [channel])

// 3. Send, then print what comes back for two seconds.
let replies = channel.messages()
let printing = Task {
    for await case .string(let reply) in replies { print("reply: \(reply)") }
}
try await channel.sendTextMessage(try JSONValue(parsing: text).jsonText())
try await Task.sleep(for: .seconds(2))
printing.cancel()
channel.detach()
await link.close()
