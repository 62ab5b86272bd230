import CastCapture
import Foundation
import Testing

/// ``PortalGrant``: the portal's restore token kept between runs, readable
/// by its owner alone, as `cast screen` and the tray keep it.
@Suite(.timeLimit(.minutes(1))) struct PortalGrantTests {
    @Test func aKeptTokenIsReadBackAndOnlyItsOwnerReadsIt() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("grant-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let grant = PortalGrant(fileURL: folder.appendingPathComponent("state/screencast-restore-token"))
        #expect(grant.restoreToken == nil, "nothing kept yet")
        try grant.keep("1f4e0c1a-5b0d-4f59-a3a7-1d2c3b4a5f60")
        #expect(grant.restoreToken == "1f4e0c1a-5b0d-4f59-a3a7-1d2c3b4a5f60")
        let file = try FileManager.default.attributesOfItem(atPath: grant.fileURL.path)
        #expect((file[.posixPermissions] as? Int) == 0o600)
        let directory = try FileManager.default.attributesOfItem(
            atPath: grant.fileURL.deletingLastPathComponent().path)
        #expect((directory[.posixPermissions] as? Int) == 0o700)
        // No new answer keeps the last one; an empty file is none.
        try grant.keep(nil)
        #expect(grant.restoreToken == "1f4e0c1a-5b0d-4f59-a3a7-1d2c3b4a5f60")
        try Data("\n".utf8).write(to: grant.fileURL)
        #expect(grant.restoreToken == nil)
    }

    @Test func theStandardGrantIsInTheApplicationsStateDirectory() {
        let grant = PortalGrant.standard(application: "cast")
        #expect(grant.fileURL.path.hasSuffix("/cast/screencast-restore-token"), "\(grant.fileURL.path)")
    }
}
