import CastDBus

/// The portal's permission store (`org.freedesktop.impl.portal.PermissionStore`,
/// xdg-permission-store), where xdg-desktop-portal keeps screen-cast grants:
/// in table `screencast`, under a restore token, which apps may use it and
/// the backend's restore data. ``SwayVirtualOutput`` writes a grant of the
/// output it made, so the portal shares that output without asking which,
/// and removes it after.
struct PortalPermissionStore {
    private static let service = "org.freedesktop.impl.portal.PermissionStore"
    private static let path = "/org/freedesktop/impl/portal/PermissionStore"
    private static let table = "screencast"

    let bus: SessionBus

    /// Grants unsandboxed apps (app id "") the share `restoreData` names, under `token`.
    func grant(token: String, restoreData: DBusValue) throws(SessionBus.Failure) {
        _ = try self.bus.call(
            Self.service, path: Self.path, interface: Self.service, member: "SetPermission",
            arguments: [.string(Self.table), .boolean(true), .string(token), .string(""), .array([.string("yes")])])
        _ = try self.bus.call(
            Self.service, path: Self.path, interface: Self.service, member: "SetValue",
            arguments: [.string(Self.table), .boolean(true), .string(token), .variant(restoreData)])
    }

    /// Removes the grant under `token`, if there is one.
    func remove(token: String) {
        _ = try? self.bus.call(
            Self.service, path: Self.path, interface: Self.service, member: "Delete",
            arguments: [.string(Self.table), .string(token)], timeout: .seconds(2))
    }
}
