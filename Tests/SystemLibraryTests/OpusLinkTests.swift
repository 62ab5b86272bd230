import COpus
import Foundation
import Testing

/// libopus links and works: 10 ms of stereo 48 kHz audio encodes to one Opus
/// packet that describes itself correctly and decodes back to 10 ms of sound.
@Suite(.timeLimit(.minutes(3))) struct OpusLinkTests {
    static let sampleRate: Int32 = 48_000
    static let channels: Int32 = 2
    static let frameSamples = 480  // 10 ms at 48 kHz

    @Test func encodesAndDecodesTenMilliseconds() throws {
        var status: Int32 = 0
        let encoder = try #require(
            opus_encoder_create(Self.sampleRate, Self.channels, OPUS_APPLICATION_RESTRICTED_LOWDELAY, &status)
        )
        defer { opus_encoder_destroy(encoder) }
        #expect(status == OPUS_OK)
        #expect(copus_encoder_set_bitrate(encoder, 128_000) == OPUS_OK)
        var bitrate: Int32 = 0
        #expect(copus_encoder_get_bitrate(encoder, &bitrate) == OPUS_OK)
        #expect(bitrate == 128_000)

        // A 1 kHz tone at half scale, both channels.
        var input = [Float](repeating: 0, count: Self.frameSamples * Int(Self.channels))
        for index in 0..<Self.frameSamples {
            let sample = 0.5 * Float(sin(2 * Double.pi * 1_000 * Double(index) / Double(Self.sampleRate)))
            input[2 * index] = sample
            input[2 * index + 1] = sample
        }
        var packet = [UInt8](repeating: 0, count: 1_500)
        let length = opus_encode_float(encoder, input, Int32(Self.frameSamples), &packet, Int32(packet.count))
        try #require(length > 0, "opus_encode_float returned \(length)")
        packet.removeSubrange(Int(length)...)
        #expect(opus_packet_get_nb_samples(packet, length, Self.sampleRate) == Int32(Self.frameSamples))
        #expect(opus_packet_get_nb_channels(packet) == Self.channels)

        let decoder = try #require(opus_decoder_create(Self.sampleRate, Self.channels, &status))
        defer { opus_decoder_destroy(decoder) }
        var output = [Float](repeating: 0, count: Self.frameSamples * Int(Self.channels))
        let decoded = opus_decode_float(decoder, packet, length, &output, Int32(Self.frameSamples), 0)
        #expect(decoded == Int32(Self.frameSamples))
        // The tone survives (less the codec's short start-up delay): the
        // decoded frame carries real energy, not silence.
        let energy = output.reduce(0) { $0 + $1 * $1 } / Float(output.count)
        #expect(energy > 0.01, "mean energy \(energy)")
    }
}
