import CastChannels
@_spi(Receiver) import CastDiscovery
import CastMedia
import Foundation

/// Receiver, media and multizone messages — several per input, cut at 0x00,
/// so partial statuses merge onto earlier ones — through the channels' own
/// receive hooks and the media status cache; and each as a device setup
/// server's `/setup/eureka_info` answer (``CastDeviceDetails``). A receiver
/// status written back as JSON must read as the same status.
func fuzzStatusJSON(_ bytes: [UInt8]) {
    let receiver = ReceiverChannel()
    let media = RemoteMediaClient()
    let multizone = MultizoneChannel()
    var cache = MediaStatusCache()
    for message in FuzzReplay.messages(bytes) {
        let text = String(decoding: message, as: UTF8.self)
        _ = try? CastDeviceDetails(eurekaInfo: Data(message))
        receiver.didReceiveTextMessage(text)
        media.didReceiveTextMessage(text)
        multizone.didReceiveTextMessage(text)
        if let json = try? JSONValue(parsing: text) {
            _ = try? cache.apply(json)
            _ = try? json.jsonText()
            // A status written as JSON reads back the same.
            if let object = json["status"] {
                let status = ReceiverStatus(json: object)
                precondition(ReceiverStatus(json: status.json) == status, "a receiver status did not read back")
            }
        }
    }
    _ = media.approximateStreamPosition()
}
