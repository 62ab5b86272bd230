import CastMediaServer
import Foundation
import Testing

@Suite(.timeLimit(.minutes(3))) struct PlaylistTests {
    let folder = URL(fileURLWithPath: "/music/lists")

    @Test func extendedM3UNamesItsEntries() throws {
        let text = """
            #EXTM3U
            #EXTINF:213,Artist - First Song
            ../albums/one.mp3

            # a comment
            #EXTINF:-1,Radio
            http://radio.example/stream.mp3
            /abs/two.flac
            file:///abs/three%20four.ogg
            Albums\\win.mp3
            """
        let playlist = try Playlist(bytes: Array(text.utf8), kind: "m3u8", folder: self.folder)
        #expect(
            playlist.entries == [
                .init(
                    location: .file(URL(fileURLWithPath: "/music/albums/one.mp3")), title: "Artist - First Song",
                    duration: 213),
                .init(location: .url("http://radio.example/stream.mp3"), title: "Radio"),
                .init(location: .file(URL(fileURLWithPath: "/abs/two.flac"))),
                .init(location: .file(URL(fileURLWithPath: "/abs/three four.ogg"))),
                .init(location: .file(URL(fileURLWithPath: "/music/lists/Albums/win.mp3"))),
            ])
    }

    @Test func plsIsReadInItsNumbersOrder() throws {
        let text =
            "[playlist]\r\nFile2=b.mp3\r\nTitle2=Bee\r\nFile1=a.mp3\r\nLength1=61\r\nNumberOfEntries=9\r\nVersion=2\r\n"
        let playlist = try Playlist(bytes: Array(text.utf8), kind: "pls", folder: self.folder)
        #expect(
            playlist.entries == [
                .init(location: .file(URL(fileURLWithPath: "/music/lists/a.mp3")), duration: 61),
                .init(location: .file(URL(fileURLWithPath: "/music/lists/b.mp3")), title: "Bee"),
            ])
        #expect(throws: PlaylistError.notAPlaylist) {
            try Playlist(bytes: Array("File1=a.mp3".utf8), kind: "pls", folder: self.folder)
        }
    }

    @Test func latin1NamesEmptyListsAndUnknownKinds() throws {
        let latin1: [UInt8] =
            Array("#EXTINF:10,Caf".utf8) + [0xE9, 0x0A] + Array("caf".utf8) + [0xE9] + Array(".mp3\n".utf8)
        let playlist = try Playlist(bytes: latin1, kind: "m3u", folder: self.folder)
        #expect(playlist.entries.first?.title == "Café")
        #expect(playlist.entries.first?.location == .file(URL(fileURLWithPath: "/music/lists/café.mp3")))
        #expect(throws: PlaylistError.empty) {
            try Playlist(bytes: Array("#EXTM3U\n# nothing\n".utf8), kind: "m3u", folder: self.folder)
        }
        #expect(throws: PlaylistError.unknownKind("txt")) {
            try Playlist(bytes: [65], kind: "txt", folder: self.folder)
        }
        #expect(Playlist.isPlaylist(URL(fileURLWithPath: "/a/B.M3U8")))
        #expect(!Playlist.isPlaylist(URL(fileURLWithPath: "/a/b.mp3")))
    }
}
