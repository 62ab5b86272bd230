import CastEmulator
import CastKit
import CastMediaServer
import CastTestSupport
import CastUI
import Foundation
import Testing

@Suite(.timeLimit(.minutes(3))) struct ImageCacheTests {
    /// Fetched once over real HTTP (Hummingbird on loopback), kept, bounded, the least recently used first out.
    @Test func imagesAreFetchedOnceKeptAndEvictedOldestFirst() async throws {
        let server = try await MediaServer.start(toward: "127.0.0.1", logger: quietLogger)
        let images = (0..<4).map { index in [UInt8](repeating: UInt8(index), count: index == 3 ? 2_000 : 1_000) }
        let urls = try images.enumerated().map { index, bytes in
            try server.serve(bytes, named: "image\(index).png", contentType: "image/png")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cast-images-\(UUID())")
        let cache = DiskImageCache(directory: directory, maximumBytes: 2_500, maximumImageBytes: 1_500)

        let first = try await cache.localFile(for: urls[0])
        #expect(try Data(contentsOf: first) == Data(images[0]))
        #expect(first.deletingLastPathComponent().path.hasPrefix(directory.path))
        // Kept: the server no longer has it, the cache still does.
        server.withdraw(urls[0])
        #expect(try await cache.localFile(for: urls[0]) == first)

        // Each image used after the one before as the file system dates them (its clock may be coarse).
        let probe = directory.deletingLastPathComponent().appendingPathComponent(directory.lastPathComponent + "-probe")
        defer { try? FileManager.default.removeItem(at: probe) }
        try await waitForLaterModificationTime(than: first, probe: probe)
        let second = try await cache.localFile(for: urls[1])
        try await waitForLaterModificationTime(than: second, probe: probe)
        let third = try await cache.localFile(for: urls[2])
        // 3 000 bytes > 2 500: the least recently used (the first) goes.
        #expect(!FileManager.default.fileExists(atPath: first.path))
        #expect(FileManager.default.fileExists(atPath: second.path))
        #expect(FileManager.default.fileExists(atPath: third.path))

        let large = await caughtError(ImageCacheError.self) { _ = try await cache.localFile(for: urls[3]) }
        #expect(large?.code == .tooLarge)
        let local = await caughtError(ImageCacheError.self) {
            _ = try await cache.localFile(for: URL(fileURLWithPath: "/etc/passwd"))
        }
        #expect(local?.code == .unsupportedURL)
        // Evicted and no longer served: fetched again, and it fails.
        let evicted = await caughtError(ImageCacheError.self) { _ = try await cache.localFile(for: urls[0]) }
        #expect(evicted?.code == .fetchFailed)
        let gone = await caughtError(ImageCacheError.self) {
            _ = try await cache.localFile(for: server.baseURL.appendingPathComponent("nothing-here.png"))
        }
        #expect(gone?.code == .fetchFailed)
        await server.stop()
    }

    /// The controller fetches the picked artwork through its cache and shows the local copy.
    @Test func theControllerShowsTheArtworksLocalCopy() async throws {
        let server = try await MediaServer.start(toward: "127.0.0.1", logger: quietLogger)
        let poster = [UInt8](repeating: 42, count: 4_096)
        let url = try server.serve(poster, named: "poster.jpg", contentType: "image/jpeg")
        let emulator = try CastEmulator(configuration: CastEmulatorConfiguration(), logger: quietLogger)
        try await emulator.start()
        let manager = SessionManager(options: uiOptions(joining: [emulator]))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cast-images-\(UUID())")
        let controller = MediaControllerModel(
            sessionManager: manager, imageCache: DiskImageCache(directory: directory))
        let log = StateLog(controller.updates())
        let session = try await manager.startSession(on: emulator.loopbackDevice)
        var metadata = MediaMetadata(type: .movie, images: [MediaImage(url: url.absoluteString)])
        metadata.setString("With artwork", forKey: .title)
        try await session.remoteMediaClient?.load(
            MediaLoadRequestData(
                mediaInformation: MediaInformation(
                    contentID: "https://media.example/a.mp4", contentType: "video/mp4", metadata: metadata)))
        let shown = await log.wait { $0.artworkFile != nil }
        let file = try #require(shown?.artworkFile)
        #expect(try Data(contentsOf: file) == Data(poster))
        #expect(shown?.image?.url == url.absoluteString)
        await manager.endSession()
        await emulator.stop()
        await server.stop()
    }

    /// Issue 34: the context's options carry the app's picker and cache, and
    /// every controller uses them — the device chooser's built-in one too,
    /// which before showed the first image and fetched nothing.
    @Test func theChoosersControllerUsesTheContextsPickerAndCache() async throws {
        struct LastPicker: ImagePicker {
            func image(from metadata: MediaMetadata, for usage: ImageUsage) -> MediaImage? { metadata.images.last }
        }
        let server = try await MediaServer.start(toward: "127.0.0.1", logger: quietLogger)
        let small = try server.serve([UInt8](repeating: 1, count: 512), named: "small.jpg", contentType: "image/jpeg")
        let poster = [UInt8](repeating: 42, count: 4_096)
        let large = try server.serve(poster, named: "large.jpg", contentType: "image/jpeg")
        let emulator = try CastEmulator(configuration: CastEmulatorConfiguration(), logger: quietLogger)
        try await emulator.start()
        var options = uiOptions(joining: [emulator])
        options.imagePicker = LastPicker()
        options.imageCache = DiskImageCache(
            directory: FileManager.default.temporaryDirectory.appendingPathComponent("cast-images-\(UUID())"))
        let context = CastContext(options: options)
        let chooser = DeviceChooserModel(context: context)
        let log = StateLog(chooser.mediaController.updates())
        let session = try await chooser.select(emulator.loopbackDevice)
        let metadata = MediaMetadata(
            type: .movie, images: [MediaImage(url: small.absoluteString), MediaImage(url: large.absoluteString)])
        try await session.remoteMediaClient?.load(
            MediaLoadRequestData(
                mediaInformation: MediaInformation(
                    contentID: "https://media.example/a.mp4", contentType: "video/mp4", metadata: metadata)))
        let shown = await log.wait { $0.artworkFile != nil }
        #expect(shown?.image?.url == large.absoluteString)
        let file = try #require(shown?.artworkFile)
        #expect(try Data(contentsOf: file) == Data(poster))
        await chooser.close()
        await context.sessionManager.endSession()
        await emulator.stop()
        await server.stop()
    }

    /// The context's image sizes reach every controller's picker as hints.
    @Test func theContextsImageSizesReachThePicker() async throws {
        let emulator = try CastEmulator(configuration: CastEmulatorConfiguration(), logger: quietLogger)
        try await emulator.start()
        var options = uiOptions(joining: [emulator])
        options.imagePicker = ClosestSizeImagePicker()
        options.imageSizes = [.controller: ImageSize(width: 300, height: 200)]
        let context = CastContext(options: options)
        let controller = MediaControllerModel(sessionManager: context.sessionManager)
        let log = StateLog(controller.updates())
        let session = try await context.sessionManager.startSession(on: emulator.loopbackDevice)
        let metadata = MediaMetadata(
            type: .movie,
            images: [
                MediaImage(url: "https://img.example/small.jpg", width: 96, height: 54),
                MediaImage(url: "https://img.example/medium.jpg", width: 480, height: 270),
                MediaImage(url: "https://img.example/large.jpg", width: 1_920, height: 1_080),
            ])
        try await session.remoteMediaClient?.load(
            MediaLoadRequestData(
                mediaInformation: MediaInformation(
                    contentID: "https://media.example/a.mp4", contentType: "video/mp4", metadata: metadata)))
        let shown = await log.wait { $0.image != nil }
        #expect(shown?.image?.url == "https://img.example/medium.jpg")
        controller.close()
        await context.sessionManager.endSession()
        await emulator.stop()
    }
}

/// When `url`'s file was last modified, as the cache reads it (a fresh URL: nothing cached).
private func modificationDate(of url: URL) -> Date? {
    try? URL(fileURLWithPath: url.path).resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate
}

/// Returns once a file written now is dated after `file`: writes `probe` (beside the cache's
/// folder, so the cache never counts it) until its modification time is later. Fails the test
/// if the file system's clock does not move on within 10 s.
private func waitForLaterModificationTime(than file: URL, probe: URL) async throws {
    let earlier = try #require(modificationDate(of: file))
    let later = try await waitUntil(within: .seconds(10)) {
        guard (try? Data([0]).write(to: probe, options: .atomic)) != nil else { return false }
        return modificationDate(of: probe).map { $0 > earlier } ?? false
    }
    #expect(later, "no file written after \(earlier) was dated later")
}
