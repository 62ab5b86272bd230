import CastChannels
import CastEmulator
import CastRemoteDisplay
import Foundation

/// An ANSWER read by the sender against its OFFER (constraints, display,
/// letterbox, pixel rate), and the same text read by the emulator as an
/// OFFER, as Open Screen's receiver reads one.
func fuzzOfferAnswer(_ bytes: [UInt8]) {
    guard let json = try? JSONValue(parsing: String(decoding: bytes, as: UTF8.self)) else { return }
    if let offer = try? StreamingOffer(configuration: RemoteDisplayConfiguration(), sequenceNumber: 1) {
        _ = try? StreamingAnswer(json, offer: offer)
    }
    // Both codec orders: Open Screen's library (VP8 first) and its standalone receiver (VP9 first).
    for audioOnly in [false, true] {
        for codecs: [VideoCodec] in [[.vp8], [.vp9, .vp8]] {
            if let negotiation = try? StreamingNegotiation(offer: json, audioOnly: audioOnly, videoCodecs: codecs) {
                _ = negotiation.answer(port: 2344, constraints: nil, display: nil)
            }
        }
    }
}
