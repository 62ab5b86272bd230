import CastUI

extension TerminalController {
    /// Acts on one key: in the device list the arrows, Enter and Esc choose; elsewhere the controls.
    func handle(_ key: TerminalKey) {
        let screen = self.screen.withLockedValue { $0 }
        if screen.showsIntroduction { try? self.introduction.markShown() }
        if screen.showsDevices {
            switch key {
            case .up:
                self.screen.withLockedValue { $0.selected = max($0.selected - 1, 0) }
                return
            case .down:
                self.screen.withLockedValue { $0.selected = min($0.selected + 1, max($0.chooser.entries.count - 1, 0)) }
                return
            case .enter:
                guard screen.chooser.entries.indices.contains(screen.selected) else { return }
                let device = screen.chooser.entries[screen.selected].device
                self.perform { try await self.chooser.select(device) }
                self.perform { await self.chooser.dismiss() }
                return
            case .escape:
                self.perform { await self.chooser.dismiss() }
                return
            default:
                break
            }
        }
        let controller = self.chooser.mediaController
        let volume = self.chooser.volume
        switch key {
        case .character(" "): self.perform { try await controller.togglePlayback() }
        case .left: self.perform { try await controller.skip(by: -controller.skipInterval) }
        case .right: self.perform { try await controller.skip() }
        case .character("+"), .character("="), .up: self.perform { try await volume.stepUp() }
        case .character("-"), .down: self.perform { try await volume.stepDown() }
        case .character("m"): self.perform { try await volume.toggleMute() }
        case .character("n"): self.perform { try await controller.next() }
        case .character("p"): self.perform { try await controller.previous() }
        case .character("k"): self.perform { try await controller.skipAd() }
        case .character("t"):
            self.perform { try await controller.setActiveTrackIDs(Self.nextSubtitles(screen.controls)) }
        case .character("r"): self.perform { try await controller.setPlaybackRate(Self.nextRate(screen.controls)) }
        case .character("c"): self.perform { await self.chooser.open() }
        case .character("s"): self.perform { await self.chooser.stopCasting() }
        case .character("d"): self.perform { await self.chooser.disconnect() }
        default: break
        }
    }

    /// Runs an action off the key loop; its error becomes the message line.
    private func perform(_ action: @escaping @Sendable () async throws -> Void) {
        Task { [screen, input] in
            do {
                try await action()
                screen.withLockedValue { $0.message = nil }
            } catch {
                screen.withLockedValue { $0.message = "\(error)" }
            }
            input.yield(.redraw)
        }
    }

    /// The active tracks after `t`: subtitles off → the first → the next … → off; other tracks kept.
    static func nextSubtitles(_ controls: MediaControls) -> [Int] {
        let subtitles = controls.tracks.filter { $0.kind == .text }.map(\.trackID)
        let others = controls.activeTrackIDs.filter { !subtitles.contains($0) }
        let current = subtitles.firstIndex { controls.activeTrackIDs.contains($0) }
        let next = current.map { $0 + 1 } ?? 0
        return others + (next < subtitles.count ? [subtitles[next]] : [])
    }

    /// The rate after `r`: 1 → 1.25 → 1.5 → 2 → 0.5 → 0.75 → 1.
    static func nextRate(_ controls: MediaControls) -> Double {
        let rates = [1, 1.25, 1.5, 2, 0.5, 0.75]
        let index = rates.firstIndex { abs($0 - controls.playbackRate) < 0.01 } ?? -1
        return rates[(index + 1) % rates.count]
    }
}
