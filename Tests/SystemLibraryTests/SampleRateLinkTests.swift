import CSampleRate
import Foundation
import Testing

/// libsamplerate links and works: one second of a 1 kHz sine at 44.1 kHz
/// becomes one second at 48 kHz that is still a 1 kHz sine.
@Suite(.timeLimit(.minutes(3))) struct SampleRateLinkTests {
    @Test func resamples44100To48000KeepingTheFrequency() throws {
        let inputRate = 44_100.0
        let outputRate = 48_000.0
        let input = (0..<Int(inputRate)).map { Float(sin(2 * Double.pi * 1_000 * Double($0) / inputRate)) }
        var output = [Float](repeating: 0, count: Int(outputRate) + 1_000)

        var generated = 0
        let status = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                var data = SRC_DATA()
                data.data_in = source.baseAddress
                data.input_frames = source.count
                data.data_out = destination.baseAddress
                data.output_frames = destination.count
                data.src_ratio = outputRate / inputRate
                data.end_of_input = 1
                let status = src_simple(&data, Int32(SRC_SINC_MEDIUM_QUALITY), 1)
                generated = data.output_frames_gen
                return status
            }
        }
        #expect(status == 0, "\(String(cString: src_strerror(status)))")
        #expect(abs(generated - Int(outputRate)) <= 64, "generated \(generated) frames")

        // Count rising zero crossings over the steady part (skip the filter's
        // start and end): a 1 kHz tone crosses 1000 times a second.
        let steady = output[2_400..<(generated - 2_400)]
        var crossings = 0
        var previous = steady.first ?? 0
        for sample in steady.dropFirst() {
            if previous < 0 && sample >= 0 { crossings += 1 }
            previous = sample
        }
        let frequency = Double(crossings) * outputRate / Double(steady.count)
        #expect(abs(frequency - 1_000) < 2, "measured \(frequency) Hz")
        // And it is still a full-scale sine, not attenuated.
        let peak = steady.map(abs).max() ?? 0
        #expect(peak > 0.95 && peak < 1.05, "peak \(peak)")
    }
}
