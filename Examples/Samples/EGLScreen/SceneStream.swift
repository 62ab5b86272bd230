import CastRemoteDisplay

/// Streams a ``GLScene`` to a Remote Display session: each picture drawn
/// with OpenGL ES, read back as RGBA, converted with libyuv straight into
/// one of the session's pooled buffers (no copy, no allocation per frame)
/// and enqueued at its time, 30 a second.
struct SceneStream {
    let scene: GLScene
    let session: RemoteDisplaySession

    /// Sends `frames` pictures paced at 30 per second from now; calls `drawn`
    /// with each picture's time and its RGBA bytes before enqueuing it.
    ///
    /// - Returns: how many frames the session took (a frame is skipped when every pooled buffer is busy).
    func run(frames: Int, drawn: (HostTime, [UInt8]) -> Void = { _, _ in }) async throws -> Int {
        var picture = [UInt8](repeating: 0, count: self.scene.width * self.scene.height * 4)
        var converter = PackedPictureConverter()
        let start = HostTime.now
        var taken = 0
        for index in 0..<frames {
            let due = start.advanced(by: .milliseconds(index * 1_000 / 30))
            let wait = HostTime.now.duration(to: due)
            if wait > .zero { try await Task.sleep(for: wait) }
            guard var buffer = self.session.createPixelBuffer() else { continue }
            self.scene.draw(frame: index, into: &picture)
            drawn(due, picture)
            try picture.withUnsafeBytes { bytes in
                try converter.convert(
                    PackedPicture(
                        bytes: bytes, width: self.scene.width, height: self.scene.height,
                        bytesPerRow: self.scene.width * 4, format: .rgba),
                    into: &buffer)
            }
            if try self.session.enqueueVideoFrame(buffer, pts: due) { taken += 1 }
        }
        return taken
    }
}
