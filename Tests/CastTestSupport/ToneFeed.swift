public import CastRemoteDisplay
import Foundation

/// Feeds `session` a sine of `frequency` at half scale, stereo at 48 kHz, in
/// 10 ms chunks at their real time, for `seconds`.
public func streamTone(seconds: Double, to session: RemoteDisplaySession, frequency: Double = 1_000) async throws {
    var input = try session.makeAudioInput(sourceSampleRate: 48_000, sourceChannelCount: 2)
    let start = HostTime.now.advanced(by: .milliseconds(50))
    for chunk in 0..<Int(seconds * 100) {
        let pts = start.advanced(by: .milliseconds(10 * chunk))
        let wait = HostTime.now.duration(to: pts)
        if wait > .zero { try await Task.sleep(for: wait) }
        var samples: [Float] = []
        samples.reserveCapacity(960)
        for index in 0..<480 {
            let value = Float(0.5 * sin(2 * Double.pi * frequency * Double(chunk * 480 + index) / 48_000))
            samples += [value, value]
        }
        _ = try input.enqueue(interleaved: samples, pts: pts)
        session.audioWasQueued()
    }
}
