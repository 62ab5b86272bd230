import CastDBus
import CastUI

/// The MPRIS properties of a media controller's state, per the MPRIS 2.2
/// specification (org.mpris.MediaPlayer2 and org.mpris.MediaPlayer2.Player).
enum MPRISProperties {
    static let objectPath = "/org/mpris/MediaPlayer2"
    static let rootInterface = "org.mpris.MediaPlayer2"
    static let playerInterface = "org.mpris.MediaPlayer2.Player"
    static let propertiesInterface = "org.freedesktop.DBus.Properties"
    static let introspectableInterface = "org.freedesktop.DBus.Introspectable"
    /// The track id of the one track a Cast session plays at a time.
    static let trackID = "/org/mpris/MediaPlayer2/cast/current"
    /// The spec's "no track" id.
    static let noTrack = "/org/mpris/MediaPlayer2/TrackList/NoTrack"

    /// org.mpris.MediaPlayer2's properties: a player the desktop cannot quit,
    /// and raise only when the app said how (`canRaise`).
    static func root(identity: String, canRaise: Bool) -> [String: DBusValue] {
        [
            "CanQuit": .boolean(false), "CanRaise": .boolean(canRaise), "HasTrackList": .boolean(false),
            "Identity": .string(identity), "SupportedUriSchemes": .array([]), "SupportedMimeTypes": .array([]),
        ]
    }

    /// org.mpris.MediaPlayer2.Player's properties for `controls`; `volume`
    /// is the device's when given and usable, the stream's otherwise.
    static func player(_ controls: MediaControls, volume: DeviceVolume?) -> [String: DBusValue] {
        let status =
            switch controls.playerState {
            case _ where !controls.shouldAppear: "Stopped"
            case .playing, .buffering: "Playing"
            case .paused: "Paused"
            default: "Stopped"
            }
        let canRate = controls.isEnabled(.playbackRate)
        let level = volume.flatMap { $0.isEnabled ? $0.level : nil } ?? controls.streamVolume.level ?? 0
        return [
            "PlaybackStatus": .string(status),
            "LoopStatus": .string("None"),
            "Shuffle": .boolean(false),
            "Rate": .double(controls.playbackRate),
            "MinimumRate": .double(canRate ? 0.5 : controls.playbackRate),
            "MaximumRate": .double(canRate ? 2 : controls.playbackRate),
            "Metadata": .dictionary(Self.metadata(controls)),
            "Volume": .double(level),
            "Position": .int64(Self.microseconds(controls.position)),
            "CanGoNext": .boolean(controls.isEnabled(.next)),
            "CanGoPrevious": .boolean(controls.isEnabled(.previous)),
            // Properties of the track, not of the moment (the MPRIS spec: CanPlay "should not depend
            // on whether the track is currently paused or playing"); playerctl skips a player whose
            // CanPlay is false, so a playing TV read as false was invisible to it.
            "CanPlay": .boolean(controls.shouldAppear && controls.isEnabled(.togglePlayback)),
            "CanPause": .boolean(controls.shouldAppear && controls.isEnabled(.togglePlayback)),
            "CanSeek": .boolean(controls.isEnabled(.seek)),
            "CanControl": .boolean(true),
        ]
    }

    /// The track's metadata: its id, length, title, artist and artwork.
    static func metadata(_ controls: MediaControls) -> [String: DBusValue] {
        guard controls.shouldAppear else { return ["mpris:trackid": .objectPath(Self.noTrack)] }
        var metadata: [String: DBusValue] = ["mpris:trackid": .objectPath(Self.trackID)]
        if let title = controls.title { metadata["xesam:title"] = .string(title) }
        if let subtitle = controls.subtitle { metadata["xesam:artist"] = .array([.string(subtitle)]) }
        if let image = controls.image { metadata["mpris:artUrl"] = .string(image.url) }
        if !controls.isLive, let range = controls.seekableRange {
            metadata["mpris:length"] = .int64(Self.microseconds(range.upperBound))
        }
        return metadata
    }

    static func microseconds(_ seconds: Double) -> Int64 {
        Int64((max(seconds, 0) * 1_000_000).rounded())
    }

    /// What Introspect answers: the three interfaces the object implements.
    static let introspection = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect"><arg name="xml" type="s" direction="out"/></method>
          </interface>
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get">
              <arg name="interface" type="s" direction="in"/><arg name="name" type="s" direction="in"/>
              <arg name="value" type="v" direction="out"/>
            </method>
            <method name="GetAll">
              <arg name="interface" type="s" direction="in"/><arg name="values" type="a{sv}" direction="out"/>
            </method>
            <method name="Set">
              <arg name="interface" type="s" direction="in"/><arg name="name" type="s" direction="in"/>
              <arg name="value" type="v" direction="in"/>
            </method>
            <signal name="PropertiesChanged">
              <arg name="interface" type="s"/><arg name="changed" type="a{sv}"/><arg name="invalidated" type="as"/>
            </signal>
          </interface>
          <interface name="org.mpris.MediaPlayer2">
            <method name="Raise"/><method name="Quit"/>
            <property name="CanQuit" type="b" access="read"/><property name="CanRaise" type="b" access="read"/>
            <property name="HasTrackList" type="b" access="read"/><property name="Identity" type="s" access="read"/>
            <property name="SupportedUriSchemes" type="as" access="read"/>
            <property name="SupportedMimeTypes" type="as" access="read"/>
          </interface>
          <interface name="org.mpris.MediaPlayer2.Player">
            <method name="Next"/><method name="Previous"/><method name="Pause"/><method name="PlayPause"/>
            <method name="Stop"/><method name="Play"/>
            <method name="Seek"><arg name="Offset" type="x" direction="in"/></method>
            <method name="SetPosition">
              <arg name="TrackId" type="o" direction="in"/><arg name="Position" type="x" direction="in"/>
            </method>
            <method name="OpenUri"><arg name="Uri" type="s" direction="in"/></method>
            <signal name="Seeked"><arg name="Position" type="x"/></signal>
            <property name="PlaybackStatus" type="s" access="read"/>
            <property name="LoopStatus" type="s" access="read"/>
            <property name="Rate" type="d" access="readwrite"/>
            <property name="Shuffle" type="b" access="read"/>
            <property name="Metadata" type="a{sv}" access="read"/>
            <property name="Volume" type="d" access="readwrite"/>
            <property name="Position" type="x" access="read"/>
            <property name="MinimumRate" type="d" access="read"/>
            <property name="MaximumRate" type="d" access="read"/>
            <property name="CanGoNext" type="b" access="read"/>
            <property name="CanGoPrevious" type="b" access="read"/>
            <property name="CanPlay" type="b" access="read"/>
            <property name="CanPause" type="b" access="read"/>
            <property name="CanSeek" type="b" access="read"/>
            <property name="CanControl" type="b" access="read"/>
          </interface>
        </node>
        """
}
