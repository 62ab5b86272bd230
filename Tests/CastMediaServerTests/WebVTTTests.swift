import CastMediaServer
import Foundation
import Testing

/// SubRip as real files have it, made WebVTT.
@Suite(.timeLimit(.minutes(3))) struct WebVTTTests {
    @Test func aPlainFileBecomesWebVTT() throws {
        let srt = "1\n00:00:01,000 --> 00:00:04,250\nHello there.\n\n2\n00:01:02,5 --> 01:00:03,05\nTwo\nlines\n"
        let vtt = try WebVTT(srt: Array(srt.utf8))
        #expect(
            vtt.text
                == "WEBVTT\n\n1\n00:00:01.000 --> 00:00:04.250\nHello there.\n\n2\n00:01:02.500 --> 01:00:03.050\nTwo\nlines\n"
        )
        #expect(vtt.cueCount == 2)
    }

    @Test func whatRealFilesContainIsAccepted() throws {
        // A byte-order mark, CRLF, dots before the milliseconds, a missing and a
        // wrong number, coordinates, extra blank lines, hours left out.
        let srt =
            "\u{FEFF}1\r\n00:00:01.000 --> 00:00:02.000 X1:100 X2:200 Y1:10 Y2:20\r\nFirst\r\n\r\n\r\n"
            + "00:03,000 --> 00:04,000\r\nNo number, no hours\r\n\r\n7\r\n00:00:05,000 --> 00:00:06,000\r\nSeventh?\r\n"
        let vtt = try WebVTT(srt: Array(srt.utf8))
        #expect(
            vtt.text
                == "WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.000\nFirst\n\n2\n00:00:03.000 --> 00:00:04.000\n"
                + "No number, no hours\n\n3\n00:00:05.000 --> 00:00:06.000\nSeventh?\n")
    }

    @Test func stylingIsKeptWhereWebVTTHasItAndEscapedOtherwise() throws {
        let srt = """
            1
            00:00:01,000 --> 00:00:02,000
            {\\an8}<i>Above</i>, <b>bold</b> & <u>under</u>
            <font color="red">red</font> <font face="Arial">plain</font> a < b --> c

            """
        let vtt = try WebVTT(srt: Array(srt.utf8))
        #expect(
            vtt.text
                == "WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.000\n<i>Above</i>, <b>bold</b> &amp; <u>under</u>\n"
                + "<c.red>red</c> plain a &lt; b --&gt; c\n")
    }

    @Test func latin1AndUTF16FilesAreDecoded() throws {
        let latin1: [UInt8] = Array("1\n00:00:01,000 --> 00:00:02,000\nCaf".utf8) + [0xE9, 0x20, 0x80, 0x0A]
        #expect(try WebVTT(srt: latin1).text.hasSuffix("Café €\n"))
        let text = "1\n00:00:01,000 --> 00:00:02,000\nÜber\n"
        let utf16: [UInt8] =
            [0xFF, 0xFE] + text.utf16.flatMap { unit -> [UInt8] in [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(try WebVTT(srt: utf16).text.hasSuffix("Über\n"))
    }

    @Test func nonsenseIsATypedErrorAndBrokenBlocksAreSkipped() throws {
        #expect(throws: SubtitleError.noCues) { try WebVTT(srt: Array("just some text\n\nmore".utf8)) }
        #expect(throws: SubtitleError.noCues) { try WebVTT(srt: []) }
        // A bad time, an end before its start, and a cue without text are skipped; the good one stays.
        let mixed =
            "1\n00:00:99,000 --> 00:01:00,000\nbad\n\n2\n00:00:05,000 --> 00:00:04,000\nbackwards\n\n"
            + "3\n00:00:01,000 --> 00:00:02,000\n\n4\n00:00:07,000 --> 00:00:08,000\ngood\n"
        let vtt = try WebVTT(srt: Array(mixed.utf8))
        #expect(vtt.cueCount == 1)
        #expect(vtt.text.hasSuffix("00:00:07.000 --> 00:00:08.000\ngood\n"))
        #expect(throws: SubtitleError.tooLarge(WebVTT.maximumBytes + 1)) {
            try WebVTT(srt: [UInt8](repeating: 0x41, count: WebVTT.maximumBytes + 1))
        }
    }

    @Test func webVTTIsTakenAsItIs() throws {
        let vtt = try WebVTT(vtt: Array("\u{FEFF}WEBVTT - a title\r\n\r\n00:01.000 --> 00:02.000\r\nHi\r\n".utf8))
        #expect(vtt.text == "WEBVTT - a title\n\n00:01.000 --> 00:02.000\nHi\n")
        #expect(vtt.cueCount == 1)
        #expect(throws: SubtitleError.notWebVTT) { try WebVTT(vtt: Array("WEBVTTX\n".utf8)) }
        #expect(throws: SubtitleError.notWebVTT) { try WebVTT(vtt: Array("1\n00:01.000 --> 00:02.000\n".utf8)) }
    }
}
