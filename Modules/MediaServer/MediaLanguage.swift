/// Languages as files tag them (ISO 639-2, both its bibliographic and
/// terminology codes) and as Cast's tracks name them (BCP 47, the
/// two-letter code where there is one).
public enum MediaLanguage {
    private static let twoLetter: [String: String] = [
        "eng": "en", "ger": "de", "deu": "de", "fre": "fr", "fra": "fr", "spa": "es", "ita": "it", "por": "pt",
        "dut": "nl", "nld": "nl", "jpn": "ja", "chi": "zh", "zho": "zh", "kor": "ko", "rus": "ru", "pol": "pl",
        "swe": "sv", "dan": "da", "fin": "fi", "nor": "no", "nob": "nb", "cze": "cs", "ces": "cs", "tur": "tr",
        "ara": "ar", "heb": "he", "hin": "hi", "gre": "el", "ell": "el", "hun": "hu", "rum": "ro", "ron": "ro",
        "ukr": "uk", "vie": "vi", "tha": "th", "ind": "id", "cat": "ca", "hrv": "hr", "srp": "sr", "slv": "sl",
    ]

    /// `tag` as BCP 47: a known ISO 639-2 code becomes its two letters; anything else stays.
    public static func bcp47(_ tag: String) -> String {
        Self.twoLetter[tag.lowercased()] ?? tag
    }

    /// Whether a track in `trackLanguage` is one in `wanted` (`fr` matches `fre`, `fra`, `fr-CA`).
    public static func matches(_ trackLanguage: String?, _ wanted: String) -> Bool {
        guard let trackLanguage else { return false }
        let primary = { (tag: String) in
            Self.bcp47(tag.split(separator: "-").first.map(String.init) ?? tag).lowercased()
        }
        return primary(trackLanguage) == primary(wanted)
    }
}
