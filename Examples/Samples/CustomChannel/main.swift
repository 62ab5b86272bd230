// Sample: a custom-channel sender. Embeds CastTransport and CastChannels:
// connects to a receiver, launches an app, and talks JSON with it on the
// app's own namespace — the way a game or a companion app would.
//
//   swift run sample-custom-channel HOST PORT APPID NAMESPACE 'JSON'

import CastChannels
import CastCommon
import CastTransport
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count == 5, let port = Int(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: sample-custom-channel HOST PORT APPID NAMESPACE JSON\n".utf8))
    exit(64)
}
let (host, appID, namespace, text) = (arguments[0], arguments[2], arguments[3], arguments[4])

// 1. A TLS connection and the platform's receiver channel.
let connection = CastConnection(host: host, port: port)
try await connection.connect()
try await connection.openVirtualConnection(to: CastEndpointID.receiverPlatform)
let receiver = ReceiverChannel()
receiver.attach(to: connection, destinationID: CastEndpointID.receiverPlatform)

// 2. The app, and our channel on its transport.
let application = try await receiver.launch(appID: appID)
guard let transportID = application.transportID else { exit(1) }
try await connection.openVirtualConnection(to: transportID)
let channel = try CastChannel(namespace: namespace)
channel.attach(to: connection, destinationID: transportID)

// 3. Send, then print what comes back for two seconds.
let replies = channel.messages()
let printing = Task {
    for await case .string(let reply) in replies { print("reply: \(reply)") }
}
try await channel.sendTextMessage(try JSONValue(parsing: text).jsonText())
try await Task.sleep(for: .seconds(2))
printing.cancel()
channel.detach()
receiver.detach()
await connection.close()
