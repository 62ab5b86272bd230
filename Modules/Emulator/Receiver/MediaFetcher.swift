import CastCommon
import Foundation
import NIOCore

/// What the Default Media Receiver's media element does with a URL before
/// it plays: asks for it (HEAD, then the first bytes with `Range: bytes=0-`,
/// as Chrome's media stack opens a progressive file), and later fetches the
/// part a SEEK lands in. An HLS stream is read as Shaka Player, the Web
/// Receiver's HLS engine, reads one: the playlist (a master playlist's
/// first variant), then the segment the playback position falls in, and
/// at a seek the segment the new position falls in
/// (`lib/media/streaming_engine.js`: the segment reference found for the
/// presentation time, fetched whole). A URL that cannot be fetched, or whose type is
/// not one Cast devices play, fails the LOAD with LOAD_FAILED and
/// `detailedErrorCode` 104 (MEDIA_SRC_NOT_SUPPORTED): every LOAD_FAILED
/// real receivers sent in ../shared/conformance (052, 053, 055, 056) carries
/// 104, for unsupported formats and unreachable sources alike.
struct MediaFetcher: Sendable {
    /// What a probe found.
    struct Probe: Sendable, Hashable {
        /// Whether the receiver would play it.
        var playable: Bool
        /// The size the server reported, bytes.
        var size: Int?
        /// An HLS stream's media playlist.
        var hls: HLSSource? = nil
        /// The audio renditions a master playlist offers the variant played, the default first.
        var sounds: [SoundRendition] = []
        /// The media playlist of the audio rendition playing, when the sound is a rendition of its own.
        var sound: HLSSource? = nil
    }

    /// One audio rendition of a master playlist.
    struct SoundRendition: Sendable, Hashable {
        /// Its media playlist, absolute.
        var url: URL
        /// Its language, as the master playlist names it.
        var language: String?
    }

    /// An HLS stream's media playlist, and the URL its segments are relative to.
    struct HLSSource: Sendable, Hashable {
        var playlist: HLSPlaylist
        var base: URL
    }

    /// Whether `contentType` (or else the URL's extension) says HLS, as the
    /// Web Receiver tells its protocols apart (its player picks HLS for the
    /// MIME types of RFC 8216 §4 and, without one, for `.m3u8`).
    static func isHLS(_ url: URL, contentType: String?) -> Bool {
        let type = contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if let type, !type.isEmpty {
            return ["application/x-mpegurl", "application/vnd.apple.mpegurl", "audio/mpegurl"].contains(type)
        }
        return url.pathExtension.lowercased() == "m3u8"
    }

    /// Content types Cast devices play (developers.google.com/cast/docs/media:
    /// MP2T, MP3, MP4, Ogg, WAV, WebM; audio codecs; images; HLS and DASH).
    /// Matroska, AVI and QuickTime are not among them.
    static func isPlayable(_ contentType: String) -> Bool {
        let type = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard let type else { return false }
        if ["video/x-matroska", "audio/x-matroska", "video/x-msvideo", "video/quicktime"].contains(type) {
            return false
        }
        return type.hasPrefix("audio/") || type.hasPrefix("image/")
            || [
                "video/mp4", "video/webm", "video/mp2t", "application/x-mpegurl", "application/vnd.apple.mpegurl",
                "application/dash+xml",
            ].contains(type)
    }

    /// How long one request may take.
    let timeout: Duration
    /// Where the requests' sockets are opened: the emulator's own event loops.
    let eventLoopGroup: any EventLoopGroup
    /// The bytes fetched at the start and at a seek.
    static let window = 64 * 1_024
    /// Redirections followed, as Chrome's network stack follows them for a
    /// media element (Chromium net/url_request/url_request.cc, kMaxRedirects = 20);
    /// URLSession, which fetched here before, followed them too.
    static let redirects = 20

    /// HEAD, then the first bytes; playable when both answer 2xx and the
    /// type (the server's, else the LOAD's `contentType`) is one Cast plays.
    /// HLS: the playlist, then the segment at `position` seconds.
    func probe(_ url: String, declaredType: String?, at position: Double = 0) async -> Probe {
        guard let target = URL(string: url) else { return Probe(playable: false, size: nil) }
        if Self.isHLS(target, contentType: declaredType) { return await self.probeHLS(target, at: position) }
        let loop = self.eventLoopGroup.next()
        guard
            let head = try? await HTTPFetch.request(
                "HEAD", target, timeout: self.timeout, redirects: Self.redirects, on: loop),
            (200..<300).contains(head.status),
            let first = try? await HTTPFetch.request(
                "GET", target, headers: [("Range", "bytes=0-\(Self.window - 1)")], timeout: self.timeout,
                redirects: Self.redirects, on: loop),
            (200..<300).contains(first.status)
        else { return Probe(playable: false, size: nil) }
        let type = head.header("Content-Type") ?? declaredType ?? ""
        let size = head.header("Content-Length").flatMap { Int($0) }
        return Probe(playable: Self.isPlayable(type), size: size)
    }

    /// The media playlist (through a master playlist's first variant), then
    /// the segment at `position`; playable when every fetch answers 2xx and
    /// the playlist reads. A variant whose sound is a group of audio
    /// renditions plays the default one (else the first): its media
    /// playlist and its segment at `position` are fetched too. Source:
    /// Shaka Player, the Web Receiver's HLS engine — `lib/hls/hls_parser.js`
    /// makes each `EXT-X-MEDIA` audio tag of the variant's `AUDIO` group a
    /// stream of its own (`DEFAULT=YES` the primary one), and
    /// `lib/media/streaming_engine.js` fetches the chosen variant's audio
    /// stream beside its video, each from the segment at the playhead.
    private func probeHLS(_ url: URL, at position: Double) async -> Probe {
        var base = url
        var sounds: [SoundRendition] = []
        for _ in 0..<2 {
            guard let playlist = await self.playlist(base) else { return Probe(playable: false, size: nil) }
            if let variant = playlist.variants.first, playlist.segments.isEmpty {
                guard let next = URL(string: variant, relativeTo: base)?.absoluteURL else { break }
                sounds = playlist.firstVariantSounds.compactMap { rendition in
                    URL(string: rendition.uri, relativeTo: base).map {
                        SoundRendition(url: $0.absoluteURL, language: rendition.language)
                    }
                }
                base = next
                continue
            }
            var probe = Probe(playable: true, size: nil, hls: HLSSource(playlist: playlist, base: base), sounds: sounds)
            if let sound = sounds.first {
                guard let source = await self.playlist(sound.url) else { return Probe(playable: false, size: nil) }
                probe.sound = HLSSource(playlist: source, base: sound.url)
            }
            // Fragmented MP4 segments play after their initialization segment, fetched first:
            // Shaka's `lib/hls/hls_parser.js` makes EXT-X-MAP the init segment of the references
            // after it, and `lib/media/streaming_engine.js` appends a stream's init segment before
            // its first media segment.
            for source in [probe.hls, probe.sound].compactMap({ $0 })
            where !(await self.fetchInitialization(of: source)) {
                return Probe(playable: false, size: nil)
            }
            guard await self.fetchSegment(of: probe, at: position) else { return Probe(playable: false, size: nil) }
            return probe
        }
        return Probe(playable: false, size: nil)
    }

    /// The playlist at `url`, when it answers 2xx and reads.
    private func playlist(_ url: URL) async -> HLSPlaylist? {
        guard
            let answer = try? await HTTPFetch.request(
                "GET", url, timeout: self.timeout, keepingBodyUpTo: HLSPlaylist.maximumBytes,
                redirects: Self.redirects, on: self.eventLoopGroup.next()),
            (200..<300).contains(answer.status), let body = answer.body
        else { return nil }
        return try? HLSPlaylist(bytes: Array(body))
    }

    /// Fetches the whole segment of an HLS `probe` that plays at `position`
    /// seconds, and the playing sound rendition's; whether each answered 2xx.
    @discardableResult
    func fetchSegment(of probe: Probe, at position: Double) async -> Bool {
        guard let hls = probe.hls, await self.fetchSegment(of: hls, at: position) else { return false }
        guard let sound = probe.sound else { return true }
        return await self.fetchSegment(of: sound, at: position)
    }

    /// Plays the audio rendition at `url` from `position`, as Shaka's
    /// streaming engine switches a variant's audio stream
    /// (`lib/media/streaming_engine.js`, `switchVariant`: the new stream's
    /// segments from the playhead on): the rendition's media playlist, its
    /// initialization segment if it has one, then its segment at the position. The
    /// probe playing it; `nil` when `url` is not one of `probe`'s renditions
    /// or a fetch fails.
    func switchSound(of probe: Probe, to url: URL, at position: Double) async -> Probe? {
        guard probe.sounds.contains(where: { $0.url == url }), let playlist = await self.playlist(url) else {
            return nil
        }
        var switched = probe
        switched.sound = HLSSource(playlist: playlist, base: url)
        guard let sound = switched.sound, await self.fetchInitialization(of: sound),
            await self.fetchSegment(of: sound, at: position)
        else { return nil }
        return switched
    }

    /// Fetches `hls`'s initialization segment, when it names one; whether that answered 2xx.
    private func fetchInitialization(of hls: HLSSource) async -> Bool {
        guard let uri = hls.playlist.initialization else { return true }
        guard let target = URL(string: uri, relativeTo: hls.base)?.absoluteURL,
            let answer = try? await HTTPFetch.request(
                "GET", target, timeout: self.timeout, redirects: Self.redirects, on: self.eventLoopGroup.next())
        else { return false }
        return (200..<300).contains(answer.status)
    }

    private func fetchSegment(of hls: HLSSource, at position: Double) async -> Bool {
        guard let segment = hls.playlist.segment(at: position),
            let target = URL(string: segment.uri, relativeTo: hls.base)?.absoluteURL,
            let answer = try? await HTTPFetch.request(
                "GET", target, timeout: self.timeout, redirects: Self.redirects, on: self.eventLoopGroup.next())
        else { return false }
        return (200..<300).contains(answer.status)
    }

    /// Fetches the window of `url` that starts at `offset`, as a seek does.
    func fetch(_ url: String, from offset: Int) async {
        guard let target = URL(string: url) else { return }
        _ = try? await HTTPFetch.request(
            "GET", target, headers: [("Range", "bytes=\(offset)-\(offset + Self.window - 1)")], timeout: self.timeout,
            redirects: Self.redirects, on: self.eventLoopGroup.next())
    }
}
