import CastKit
import CastUI
import Foundation

/// What a ``TerminalController`` shows at one moment: the models' states
/// and the controller's own (the highlighted device, the last message).
struct TerminalScreen: Equatable {
    var button = CastButtonState(castState: .noDevicesAvailable)
    var chooser = DeviceChooserState.initial
    var controls = MediaControls.none
    var volume = DeviceVolume.unavailable
    var selected = 0
    var showsIntroduction = false
    var message: String?

    /// Whether the device list shows: while no session runs, or when asked (`c`).
    var showsDevices: Bool { self.chooser.connection == nil || self.chooser.isOpen }

    /// The screen as lines of plain text (it reads the same without colour).
    func lines(width: Int) -> [String] {
        var lines: [String] = []
        let state =
            switch self.button.castState {
            case .noDevicesAvailable: "no devices"
            case .notConnected: "not connected"
            case .connecting: "connecting to \(self.button.deviceName ?? "…")"
            case .connected: "connected to \(self.button.deviceName ?? "…")"
            }
        lines.append("Cast — \(state)")
        lines.append(String(repeating: "─", count: max(10, min(width, 100))))
        if self.showsIntroduction {
            lines.append("Tip: \(IntroductionPrompt.defaultText) from the list below.")
            lines.append("")
        }
        if self.showsDevices { lines += self.deviceLines() }
        if self.chooser.connection != nil { lines += self.nowPlayingLines(width: width) }
        lines.append("")
        if let message = self.message { lines.append("! \(message)") }
        lines.append(self.keysLine())
        return lines
    }

    private func deviceLines() -> [String] {
        var lines = ["DEVICES  (↑/↓ choose, Enter connect\(self.chooser.connection != nil ? ", Esc close" : ""))"]
        if self.chooser.entries.isEmpty {
            lines.append("  " + (self.chooser.noDevicesReason ?? .searching).hint)
        }
        for (index, entry) in self.chooser.entries.enumerated() {
            let marker = index == self.selected ? ">" : " "
            var line = "\(marker) \(entry.device.friendlyName)"
            // The manufacturer and model, once the device's setup server told them.
            if entry.details != nil, !entry.modelText.isEmpty { line += "  (\(entry.modelText))" }
            if entry.isCurrent { line += "  [connected]" }
            if let status = entry.statusText, !status.isEmpty { line += "  — \(status)" }
            lines.append(line)
        }
        lines.append("")
        return lines
    }

    private func nowPlayingLines(width: Int) -> [String] {
        var lines = ["NOW PLAYING"]
        let controls = self.controls
        if let connection = self.chooser.connection, connection.isConnecting {
            lines.append("  (reconnecting to \(connection.device.friendlyName)…)")
        }
        guard controls.shouldAppear else {
            lines.append("  nothing playing on \(self.chooser.connection?.applicationName ?? "the receiver")")
            lines += self.volumeLines(width: width)
            return lines
        }
        lines.append("  \(controls.title ?? "Untitled")")
        if let subtitle = controls.subtitle { lines.append("  \(subtitle)") }
        if let image = controls.image { lines.append("  artwork: \(image.url)") }
        var progress = "  \(controls.playerState.rawValue)"
        if controls.isLive { progress += "  LIVE" }
        if let range = controls.seekableRange {
            let span = max(range.upperBound - range.lowerBound, 0.001)
            let fraction = min(max((controls.position - range.lowerBound) / span, 0), 1)
            progress += "  " + Self.bar(fraction, width: max(10, min(width - 40, 50)))
            progress += "  \(Self.clock(controls.position)) / \(Self.clock(range.upperBound))"
        } else {
            progress += "  \(Self.clock(controls.position))"
        }
        if controls.playbackRate != 1 { progress += "  ×\(Self.rate(controls.playbackRate))" }
        lines.append(progress)
        if let ad = controls.adBreak {
            var line = "  Ad: \(ad.clipTitle ?? "advertisement")"
            switch ad.secondsUntilSkippable {
            case 0?: line += "  — [k] skip ad"
            case let seconds?: line += "  — skip in \(Int(seconds.rounded(.up))) s"
            case nil: line += "  — cannot be skipped"
            }
            lines.append(line)
        }
        let subtitles = controls.tracks.filter { $0.kind == .text }
        if !subtitles.isEmpty {
            let active = subtitles.first { controls.activeTrackIDs.contains($0.trackID) }
            lines.append("  Subtitles: \(active.map { $0.name ?? $0.language ?? "track \($0.trackID)" } ?? "off")")
        }
        lines += self.volumeLines(width: width)
        return lines
    }

    private func volumeLines(width: Int) -> [String] {
        guard self.chooser.connection != nil else { return [] }
        var line =
            "  Volume " + Self.bar(self.volume.level, width: 20) + " \(Int((self.volume.level * 100).rounded()))%"
        if self.volume.isMuted { line += "  (muted)" }
        if self.volume.isFixed { line += "  (fixed: the TV's own volume)" }
        return [line]
    }

    /// The keys that work now, and only those.
    private func keysLine() -> String {
        var keys: [String] = []
        let controls = self.controls
        if self.chooser.connection != nil {
            if controls.isEnabled(.togglePlayback), let action = controls.primaryAction {
                let name =
                    switch action {
                    case .play: "play"
                    case .pause: "pause"
                    case .stop: "stop"
                    }
                keys.append("space \(name)")
            }
            if controls.isEnabled(.seek) { keys.append("←/→ seek 10 s") }
            if self.volume.isEnabled { keys.append("+/- volume") }
            if self.volume.isEnabled { keys.append("m mute") }
            if controls.isEnabled(.next) { keys.append("n next") }
            if controls.isEnabled(.previous) { keys.append("p previous") }
            if controls.isEnabled(.tracks) { keys.append("t subtitles") }
            if controls.isEnabled(.playbackRate) { keys.append("r rate") }
            if controls.isEnabled(.skipAd) { keys.append("k skip ad") }
            keys += ["c devices", "s stop casting", "d disconnect"]
        }
        keys.append("q quit")
        return "Keys: " + keys.joined(separator: "  ")
    }

    /// `[#####-----]` filled to `fraction`.
    static func bar(_ fraction: Double, width: Int) -> String {
        let filled = Int((min(max(fraction, 0), 1) * Double(width)).rounded())
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]"
    }

    /// `m:ss`, or `h:mm:ss` from an hour.
    static func clock(_ seconds: Double) -> String {
        let total = Int(max(seconds, 0))
        let (hours, minutes, secs) = (total / 3_600, total / 60 % 60, total % 60)
        return hours > 0
            ? String(format: "%d:%02d:%02d", hours, minutes, secs) : String(format: "%d:%02d", minutes, secs)
    }

    /// A rate without trailing zeros: 1.5, 2, 0.75.
    static func rate(_ rate: Double) -> String {
        rate == rate.rounded() ? String(Int(rate)) : String(format: "%g", rate)
    }
}
