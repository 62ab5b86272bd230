import CastChannels
import CastMedia
import Foundation

/// Receiver, media and multizone messages — several per input, cut at 0x00,
/// so partial statuses merge onto earlier ones — through the channels' own
/// receive hooks and the media status cache.
func fuzzStatusJSON(_ bytes: [UInt8]) {
    let receiver = ReceiverChannel()
    let media = RemoteMediaClient()
    let multizone = MultizoneChannel()
    var cache = MediaStatusCache()
    for message in FuzzReplay.messages(bytes) {
        let text = String(decoding: message, as: UTF8.self)
        receiver.didReceiveTextMessage(text)
        media.didReceiveTextMessage(text)
        multizone.didReceiveTextMessage(text)
        if let json = try? JSONValue(parsing: text) {
            _ = try? cache.apply(json)
            _ = try? json.jsonText()
        }
    }
    _ = media.approximateStreamPosition()
}
