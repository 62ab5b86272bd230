import CastRemoteDisplay
import CastTestSupport
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import sample_egl_screen

/// The EGL sample: a scene drawn with OpenGL ES on Mesa's surfaceless
/// platform (no window, no GPU: llvmpipe), read back as RGBA, converted into
/// the session's pooled buffers and streamed — decoded by the emulator
/// faithfully to what was drawn. Not under a sanitizer: Mesa's renderer
/// threads are not instrumented, and the Swift side of streaming is the
/// Remote Display suites' to check there.
@Suite(
    .timeLimit(.minutes(5)),
    .enabled(if: !Sanitizers.areActive, "Mesa is not instrumented"),
    .enabled(if: SurfacelessEGL.isAvailable, "needs EGL with Mesa's surfaceless platform (make setup installs it)"))
struct EGLScreenSampleTests {
    /// Each decoded picture against the luma of the RGBA drawn at its time
    /// (BT.601 limited range, as libyuv converts it): every frame decoded,
    /// at 35 dB or more.
    @Test func aSceneDrawnWithOpenGLESIsDecodedFaithfully() async throws {
        try await StreamingFixture.with { fixture in
            // Each drawn picture's luma by its time; the receiver's capture time comes back through the
            // RTP clock (90 kHz), so a picture is found within 1 ms of it, as TestSignal finds its frames.
            let references = NIOLockedValueBox<[HostTime: [UInt8]]>([:])
            fixture.emulator.streaming.videoReference = { time in
                references.withLockedValue { drawn in
                    drawn.first { abs($0.key.duration(to: time)) < .milliseconds(1) }?.value
                }
            }
            let session = try await fixture.channel.beginSession(
                configuration: RemoteDisplayConfiguration(
                    resolutions: [RemoteDisplayConfiguration.Resolution(width: 640, height: 360)], audio: nil))
            let size = session.configuration.resolution
            let scene = try GLScene(width: size.width, height: size.height)
            #expect(!scene.renderer.isEmpty)
            var drawn = 0
            var distinct = Set<[UInt8]>()
            let taken = try await SceneStream(scene: scene, session: session).run(frames: 60) { time, rgba in
                let luma = Self.luma(rgba, width: size.width, height: size.height)
                references.withLockedValue { $0[time] = luma }
                drawn += 1
                distinct.insert(luma)
            }
            // Every picture was drawn afresh (the disc moves each frame), whichever thread drew it.
            #expect(distinct.count == drawn, "\(distinct.count) distinct of \(drawn)")
            let report = try #require(try await fixture.report { $0.video?.framesDecoded == taken })
            let video = try #require(report.video)
            print("EGL scene 360p: \(video), \(taken) frames taken, drawn by \(scene.renderer)")
            #expect(taken > 50)
            #expect(video.framesDecoded == taken)
            #expect(video.decodeErrors == 0)
            #expect(video.unmatchedPictures == 0)
            #expect((video.minimumPSNR ?? 0) >= 35, "\(video)")
            session.stop()
        }
    }

    /// The luma plane of an RGBA picture: BT.601 limited range, libyuv's
    /// formula (`(66 R + 129 G + 25 B + 128) >> 8) + 16`).
    static func luma(_ rgba: [UInt8], width: Int, height: Int) -> [UInt8] {
        var luma = [UInt8](repeating: 0, count: width * height)
        for index in 0..<(width * height) {
            let red = Int(rgba[index * 4])
            let green = Int(rgba[index * 4 + 1])
            let blue = Int(rgba[index * 4 + 2])
            luma[index] = UInt8(((66 * red + 129 * green + 25 * blue + 128) >> 8) + 16)
        }
        return luma
    }
}

/// Whether a surfaceless OpenGL ES context can be made here. Mesa's
/// software renderer is told to use one thread (before its first use in
/// this process), so drawing does not take the cores from a stream another
/// test sends meanwhile.
enum SurfacelessEGL {
    static let isAvailable: Bool = {
        setenv("LP_NUM_THREADS", "1", 0)
        return (try? GLScene(width: 16, height: 16)) != nil
    }()
}
