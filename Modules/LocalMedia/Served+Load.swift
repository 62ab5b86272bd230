public import CastMedia

extension LocalMedia.Served {
    /// The file's own subtitles as a LOAD's text tracks (WebVTT, as served),
    /// numbered from `firstID`: put other tracks before them and start after.
    public func textTracks(numberedFrom firstID: Int = 1) -> [MediaTrack] {
        self.textTracks.enumerated().map { offset, track in
            MediaTrack(
                trackID: firstID + offset, kind: .text, subtype: .subtitles, contentID: track.url.absoluteString,
                contentType: "text/vtt", language: track.language, name: track.name)
        }
    }

    /// The id, among ``textTracks(numberedFrom:)``, of the subtitles the file
    /// marks as shown by default; `nil` when it marks none.
    public func defaultTextTrackID(numberedFrom firstID: Int = 1) -> Int? {
        self.textTracks.firstIndex(where: \.isDefault).map { firstID + $0 }
    }

    /// The film's sounds as a LOAD's audio tracks (each an HLS rendition's
    /// media playlist), numbered from `firstID`: put them after the text tracks.
    public func soundTracks(numberedFrom firstID: Int) -> [MediaTrack] {
        self.soundTracks.enumerated().map { offset, track in
            MediaTrack(
                trackID: firstID + offset, kind: .audio, contentID: track.url.absoluteString,
                contentType: "application/vnd.apple.mpegurl", language: track.language, name: track.name)
        }
    }

    /// The id, among ``soundTracks(numberedFrom:)``, of the sound that plays by default; `nil` without sound tracks.
    public func defaultSoundTrackID(numberedFrom firstID: Int) -> Int? {
        self.soundTracks.firstIndex(where: \.isDefault).map { firstID + $0 }
    }

    /// What a LOAD sends for the served file: its URL, content type and
    /// length, `tracks` (the file's own subtitles by default), `metadata`
    /// (by default its title, or the file name), and the HLS segment formats
    /// when it is converted on the fly (MPEG-TS, or fragmented MP4 for a copied HEVC video).
    public func mediaInformation(
        metadata: MediaMetadata? = nil, tracks: [MediaTrack]? = nil, streamType: MediaStreamType = .buffered
    ) -> MediaInformation {
        var shown = metadata ?? MediaMetadata(type: .generic)
        if metadata == nil { shown.setString(self.title ?? self.url.lastPathComponent, forKey: .title) }
        let tracks = tracks ?? self.textTracks()
        return MediaInformation(
            contentID: self.url.absoluteString, streamType: streamType, contentType: self.contentType,
            metadata: shown, duration: self.duration, tracks: tracks.isEmpty ? nil : tracks,
            hlsSegmentFormat: self.isSegmented ? (self.segmentsAreFragmentedMP4 ? .fmp4 : .ts) : nil,
            hlsVideoSegmentFormat: self.isSegmented ? (self.segmentsAreFragmentedMP4 ? .fmp4 : .mpeg2TS) : nil)
    }
}
