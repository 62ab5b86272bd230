public import CastChannels
public import Foundation

/// A colour in CSS `#RRGGBBAA` form, as text track styles carry them.
public struct CastColor: Codable, Hashable, Sendable, CustomStringConvertible {
    /// Red, 0...255.
    public var red: UInt8
    /// Green, 0...255.
    public var green: UInt8
    /// Blue, 0...255.
    public var blue: UInt8
    /// Opacity, 0...255 (255 is opaque).
    public var alpha: UInt8

    /// Creates a colour.
    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// Parses `#RRGGBBAA` or `#RRGGBB` (opaque); `nil` for anything else.
    public init?(cssString: String) {
        guard cssString.hasPrefix("#") else { return nil }
        let hex = cssString.dropFirst()
        guard hex.count == 6 || hex.count == 8, let value = UInt32(hex, radix: 16) else { return nil }
        let full = hex.count == 6 ? value << 8 | 0xFF : value
        self.init(
            red: UInt8(full >> 24), green: UInt8(full >> 16 & 0xFF), blue: UInt8(full >> 8 & 0xFF),
            alpha: UInt8(full & 0xFF))
    }

    /// `#RRGGBBAA`, upper-case.
    public var description: String {
        "#"
            + [self.red, self.green, self.blue, self.alpha].map { byte in
                let hex = String(byte, radix: 16, uppercase: true)
                return byte < 16 ? "0" + hex : hex
            }.joined()
    }

    /// Reads `#RRGGBBAA` or `#RRGGBB`.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let color = CastColor(cssString: text) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: "not a #RRGGBBAA colour: \(text)"))
        }
        self = color
    }

    /// Writes `#RRGGBBAA`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.description)
    }
}

/// How text tracks look (`textTrackStyle`): the SDK's `GCKMediaTextTrackStyle`.
/// Unset fields leave the receiver's own choice.
public struct TextTrackStyle: Codable, Hashable, Sendable {
    /// The outline around characters (`edgeType`).
    public struct EdgeType: RawRepresentable, Codable, Hashable, Sendable {
        /// The wire string.
        public let rawValue: String
        /// Wraps a wire string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// No edge.
        public static let none = EdgeType(rawValue: "NONE")
        /// An outline.
        public static let outline = EdgeType(rawValue: "OUTLINE")
        /// A drop shadow.
        public static let dropShadow = EdgeType(rawValue: "DROP_SHADOW")
        /// Raised.
        public static let raised = EdgeType(rawValue: "RAISED")
        /// Depressed.
        public static let depressed = EdgeType(rawValue: "DEPRESSED")
    }

    /// A generic font family (`fontGenericFamily`).
    public struct FontFamily: RawRepresentable, Codable, Hashable, Sendable {
        /// The wire string.
        public let rawValue: String
        /// Wraps a wire string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Sans serif.
        public static let sansSerif = FontFamily(rawValue: "SANS_SERIF")
        /// Monospaced sans serif.
        public static let monospacedSansSerif = FontFamily(rawValue: "MONOSPACED_SANS_SERIF")
        /// Serif.
        public static let serif = FontFamily(rawValue: "SERIF")
        /// Monospaced serif.
        public static let monospacedSerif = FontFamily(rawValue: "MONOSPACED_SERIF")
        /// Casual.
        public static let casual = FontFamily(rawValue: "CASUAL")
        /// Cursive.
        public static let cursive = FontFamily(rawValue: "CURSIVE")
        /// Small capitals.
        public static let smallCapitals = FontFamily(rawValue: "SMALL_CAPITALS")
    }

    /// Bold and italic (`fontStyle`).
    public struct FontStyle: RawRepresentable, Codable, Hashable, Sendable {
        /// The wire string.
        public let rawValue: String
        /// Wraps a wire string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Regular.
        public static let normal = FontStyle(rawValue: "NORMAL")
        /// Bold.
        public static let bold = FontStyle(rawValue: "BOLD")
        /// Bold italic.
        public static let boldItalic = FontStyle(rawValue: "BOLD_ITALIC")
        /// Italic.
        public static let italic = FontStyle(rawValue: "ITALIC")
    }

    /// The box around the text (`windowType`).
    public struct WindowType: RawRepresentable, Codable, Hashable, Sendable {
        /// The wire string.
        public let rawValue: String
        /// Wraps a wire string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// No window.
        public static let none = WindowType(rawValue: "NONE")
        /// A rectangle.
        public static let normal = WindowType(rawValue: "NORMAL")
        /// A rectangle with rounded corners.
        public static let roundedCorners = WindowType(rawValue: "ROUNDED_CORNERS")
    }

    /// The text colour.
    public var foregroundColor: CastColor?
    /// The colour behind the text.
    public var backgroundColor: CastColor?
    /// The outline kind.
    public var edgeType: EdgeType?
    /// The outline colour.
    public var edgeColor: CastColor?
    /// The size relative to the default, e.g. 1.5.
    public var fontScale: Double?
    /// A specific font family name.
    public var fontFamily: String?
    /// The generic family, used when `fontFamily` is unavailable.
    public var fontGenericFamily: FontFamily?
    /// Bold and italic.
    public var fontStyle: FontStyle?
    /// The window kind.
    public var windowType: WindowType?
    /// The window colour.
    public var windowColor: CastColor?
    /// The window's corner radius in pixels, for rounded windows.
    public var windowRoundedCornerRadius: Int?
    /// App data.
    public var customData: JSONValue?

    /// Creates a style with nothing set.
    public init() {}

    /// The SDK's built-in style: white sans-serif text on black, no edge, no window, scale 1.
    public static let sdkDefault: TextTrackStyle = {
        var style = TextTrackStyle()
        style.foregroundColor = CastColor(red: 255, green: 255, blue: 255)
        style.backgroundColor = CastColor(red: 0, green: 0, blue: 0)
        style.edgeType = TextTrackStyle.EdgeType.none
        style.fontScale = 1
        style.fontGenericFamily = .sansSerif
        style.fontStyle = .normal
        style.windowType = TextTrackStyle.WindowType.none
        return style
    }()

    /// The user's caption file: `$XDG_CONFIG_HOME/cast/captions.json`.
    public static func userStyleFile(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        XDGDirectory.configuration.file("captions.json", application: "cast", environment: environment)
    }

    /// The default style for this user, as the SDK takes it from the
    /// system's caption settings: ``sdkDefault`` with the fields of the
    /// user's caption file (``userStyleFile(environment:)``) laid over it.
    /// The file holds a style in the wire's own names, e.g.
    /// `{"foregroundColor": "#FFFF00FF", "fontScale": 1.5}`. Linux desktops
    /// keep no caption settings of their own, so this file is the place; a
    /// missing, oversized (over 64 KiB) or unreadable file gives ``sdkDefault``.
    public static func createDefault(environment: [String: String] = ProcessInfo.processInfo.environment)
        -> TextTrackStyle
    {
        let file = Self.userStyleFile(environment: environment)
        guard let handle = try? FileHandle(forReadingFrom: file) else { return Self.sdkDefault }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 65_537), data.count <= 65_536,
            let user = try? JSONValue(parsing: String(decoding: data, as: UTF8.self)).objectValue,
            let base = try? JSONValue(encoding: Self.sdkDefault).objectValue,
            let merged = JSONValue.object(base.merging(user) { $1 }).decoded(as: TextTrackStyle.self)
        else { return Self.sdkDefault }
        return merged
    }
}
