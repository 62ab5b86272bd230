public import CastChannels

/// An image of the media: its URL and, if known, its size in pixels.
public struct MediaImage: Codable, Hashable, Sendable {
    /// The image's URL.
    public var url: String
    /// The width in pixels, if known.
    public var width: Int?
    /// The height in pixels, if known.
    public var height: Int?

    /// Creates an image.
    public init(url: String, width: Int? = nil, height: Int? = nil) {
        self.url = url
        self.width = width
        self.height = height
    }
}

/// What the media is (`metadata`): a type, typed keys per type, any custom
/// keys, and images — the SDK's `GCKMediaMetadata`. On the wire every key
/// sits beside `metadataType` and `images` in one object.
public struct MediaMetadata: Codable, Hashable, Sendable {
    /// The kind of media, which says which keys apply (`metadataType`).
    public struct MetadataType: RawRepresentable, Codable, Hashable, Sendable {
        /// The wire number.
        public let rawValue: Int
        /// Wraps a wire number.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Title, subtitle, images, release date.
        public static let generic = MetadataType(rawValue: 0)
        /// A movie: adds studio.
        public static let movie = MetadataType(rawValue: 1)
        /// A TV episode: series title, season, episode, original air date.
        public static let tvShow = MetadataType(rawValue: 2)
        /// A music track: album, artists, composer, track and disc numbers.
        public static let musicTrack = MetadataType(rawValue: 3)
        /// A photo: artist, location, coordinates, size, creation time.
        public static let photo = MetadataType(rawValue: 4)
        /// An app-defined type (the SDK's user type).
        public static let user = MetadataType(rawValue: 100)
    }

    /// A metadata key: the well-known ones are static members; any other string is a custom key.
    public struct Key: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
        /// The wire name.
        public let rawValue: String
        /// Wraps a wire name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Wraps a wire name.
        public init(stringLiteral value: String) { self.rawValue = value }

        /// Title (every type). String.
        public static let title: Key = "title"
        /// Subtitle (generic, movie). String.
        public static let subtitle: Key = "subtitle"
        /// Studio (movie). String.
        public static let studio: Key = "studio"
        /// Series title (TV show). String.
        public static let seriesTitle: Key = "seriesTitle"
        /// Season number (TV show). Integer.
        public static let season: Key = "season"
        /// Episode number (TV show). Integer.
        public static let episode: Key = "episode"
        /// First broadcast (TV show), ISO 8601. String.
        public static let originalAirdate: Key = "originalAirdate"
        /// Release date (generic, movie, music track), ISO 8601. String.
        public static let releaseDate: Key = "releaseDate"
        /// Album (music track). String.
        public static let albumName: Key = "albumName"
        /// Album artist (music track). String.
        public static let albumArtist: Key = "albumArtist"
        /// Artist (music track, photo). String.
        public static let artist: Key = "artist"
        /// Composer (music track). String.
        public static let composer: Key = "composer"
        /// Track number (music track). Integer.
        public static let trackNumber: Key = "trackNumber"
        /// Disc number (music track). Integer.
        public static let discNumber: Key = "discNumber"
        /// Where the photo was taken. String.
        public static let location: Key = "location"
        /// Latitude (photo). Number.
        public static let latitude: Key = "latitude"
        /// Longitude (photo). Number.
        public static let longitude: Key = "longitude"
        /// Width in pixels (photo). Integer.
        public static let width: Key = "width"
        /// Height in pixels (photo). Integer.
        public static let height: Key = "height"
        /// When the photo was taken, ISO 8601. String.
        public static let creationDateTime: Key = "creationDateTime"
    }

    /// The kind of media.
    public var type: MetadataType
    /// The images, best first.
    public var images: [MediaImage]
    /// Every other key's value, well-known and custom.
    public private(set) var values: [Key: JSONValue]

    /// Creates empty metadata of `type`.
    public init(type: MetadataType = .generic, images: [MediaImage] = []) {
        self.type = type
        self.images = images
        self.values = [:]
    }

    /// The value for `key`, or `nil`.
    public subscript(key: Key) -> JSONValue? {
        get { self.values[key] }
        set { self.values[key] = newValue }
    }

    /// The string for `key`, if it holds one.
    public func string(forKey key: Key) -> String? { self.values[key]?.stringValue }
    /// The integer for `key`, if it holds one.
    public func integer(forKey key: Key) -> Int? { self.values[key]?.intValue }
    /// The number for `key`, if it holds one.
    public func double(forKey key: Key) -> Double? { self.values[key]?.doubleValue }

    /// Sets a string.
    public mutating func setString(_ value: String, forKey key: Key) { self.values[key] = .string(value) }
    /// Sets an integer.
    public mutating func setInteger(_ value: Int, forKey key: Key) { self.values[key] = .integer(value) }
    /// Sets a number.
    public mutating func setDouble(_ value: Double, forKey key: Key) { self.values[key] = .number(value) }

    private struct WireKey: CodingKey, Equatable {
        let stringValue: String
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
        var intValue: Int? { nil }
        static let metadataType = WireKey(stringValue: "metadataType")
        static let images = WireKey(stringValue: "images")
    }

    /// Reads the wire object: `metadataType`, `images`, and every other key as a value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: WireKey.self)
        self.type = try container.decodeIfPresent(MetadataType.self, forKey: .metadataType) ?? .generic
        self.images = (try? container.decodeIfPresent([MediaImage].self, forKey: .images)) ?? []
        self.values = [:]
        for key in container.allKeys where key != .metadataType && key != .images {
            self.values[Key(rawValue: key.stringValue)] = try container.decode(JSONValue.self, forKey: key)
        }
    }

    /// Writes the wire object; `images` only when there are some.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: WireKey.self)
        try container.encode(self.type, forKey: .metadataType)
        if !self.images.isEmpty { try container.encode(self.images, forKey: .images) }
        for (key, value) in self.values {
            try container.encode(value, forKey: WireKey(stringValue: key.rawValue))
        }
    }
}
