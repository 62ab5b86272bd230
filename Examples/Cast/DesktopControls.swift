import CastKit
import CastMPRIS
import CastUI

/// `--mpris`: the desktop's media keys and controls for what the command
/// casts. A desktop without a session bus gets a warning, not a failure.
struct DesktopControls {
    private let player: MPRISPlayer

    /// Publishes `controller` (and `volume`) as an MPRIS player; `nil`, with a
    /// warning, when it cannot. `raise` is what the desktop's "show the
    /// player" does; without it the desktop is told the player cannot be raised.
    init?(controller: MediaControllerModel, volume: VolumeModel? = nil, raise: (@Sendable () -> Void)? = nil) {
        do {
            self.player = try MPRISPlayer(controller: controller, volume: volume, raise: raise)
            Output.progress("media keys: \(self.player.busName) on the session bus")
        } catch {
            Output.progress("warning: no desktop media controls (\(error))")
            return nil
        }
    }

    /// Publishes one media client.
    init?(client: RemoteMediaClient) {
        self.init(controller: MediaControllerModel(client: client))
    }

    func close() {
        self.player.close()
    }
}
