import CastKit
import CastTestSupport
import Foundation
import Testing

/// `cast` and `cast-receiver` run by an ordinary user, as people run them
/// (issue 32). As root, every program here runs as `nobody` without
/// capabilities (``UnprivilegedUser``); the sender once set TCP_NODELAY at
/// the socket level, which is SO_DEBUG there and needs CAP_NET_ADMIN, so no
/// user but root could connect, and the emulator dropped every sender during
/// the TLS handshake for the same reason.
@Suite(
    .timeLimit(.minutes(10)),
    .enabled(if: UnprivilegedUser.isAvailable, "needs setpriv (util-linux) to run programs unprivileged as root"))
struct UnprivilegedUserTests {
    /// Runs `arguments` (the built `cast` first) as `user` in `namespace`, if one is given.
    static func run(
        _ user: UnprivilegedUser, _ arguments: [String], in namespace: String? = nil,
        interruptWhenPrinted: (@Sendable (String) -> Bool)? = nil
    ) async throws -> CastCommandLineTests.Run {
        let command = (namespace.map { ["/usr/sbin/ip", "netns", "exec", $0] } ?? []) + (try user.command(arguments))
        let output = try await CommandOutput.of(
            command, environment: user.environment, interruptWhenPrinted: interruptWhenPrinted)
        return CastCommandLineTests.Run(status: output.status, stdout: output.stdout, stderr: output.stderr)
    }

    /// The user id a process runs as, from `/proc`.
    static func userID(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("Uid:") })
        return try #require(Int(line.split(whereSeparator: \.isWhitespace)[1]))
    }

    @Test func statusLaunchPlayAndScreenAgainstAReceiverRunByTheSameUser() async throws {
        try await RealTimeTurns.take(.childProcesses) { try await Self.controlAsUser() }
    }

    private static func controlAsUser() async throws {
        let user = try UnprivilegedUser.make()
        defer { user.remove() }
        let identity = try await Self.run(user, ["/usr/bin/id", "-u"])
        #expect(identity.stdout == "\(getuid() == 0 ? UnprivilegedUser.uid : getuid())\n")
        let receiver = try await onOwnThread {
            try CastReceiverCommandTests.Receiver(
                command: try user.command([
                    CastCommandLineTests.executable("cast-receiver"), "--port", "0", "--name", "User TV",
                    "--seconds", "120",
                ]),
                environment: user.environment)
        }
        let result = await outcome {
            #expect(try Self.userID(of: receiver.process.processIdentifier) == Int(identity.stdout.dropLast()))
            let cast = CastCommandLineTests.executable("cast")
            let device = "127.0.0.1:\(receiver.port)"

            let status = try await Self.run(user, [cast, "status", "--device", device, "--json"])
            #expect(status.status == 0, "\(status.stderr)")
            #expect(try status.json()["volume"]?["level"] != nil, "\(status.stdout)")

            let launch = try await Self.run(user, [cast, "launch", "CC1AD845", "--device", device, "--json"])
            #expect(launch.status == 0, "\(launch.stderr)")
            #expect(try launch.json()["displayName"] == "Default Media Receiver")

            let play = try await Self.run(
                user, [cast, "play", "https://media.example/bbb.mp4", "--device", device, "--json"])
            #expect(play.status == 0, "\(play.stderr)")
            #expect(try play.json()["media"]?["contentId"] == "https://media.example/bbb.mp4")
            let paused = try await Self.run(user, [cast, "pause", "--device", device, "--json"])
            #expect(try paused.json()["playerState"] == "PAUSED", "\(paused.stderr)")

            let screen = try await Self.run(
                user,
                [
                    cast, "screen", "--test-pattern", "--width", "640", "--height", "360", "--seconds", "1", "--device",
                    device, "--json",
                ])
            #expect(screen.status == 0, "\(screen.stderr)")
            let sent = try #require(try screen.json()["videoFramesSent"]?.intValue)
            #expect(sent > 0)
            #expect(try screen.json()["videoFramesAcknowledged"]?.intValue == sent)
        }
        let log = try await onOwnThread { receiver.stop() }
        try result.get()
        #expect(log.contains("sender connected"), "\(log)")
    }

    @Test(.enabled(if: NamespacePair.isAvailable, "needs root and iproute2 to create network namespaces"))
    func discoverAndStatusInsideANamespace() async throws {
        try await RealTimeTurns.take(.childProcesses) { try await Self.discoverAsUser() }
    }

    /// `cast-receiver --advertise` in one namespace and `cast discover` in
    /// the other, both as the user: mDNS sockets (port 5353 shared, group
    /// membership, multicast options) need no privilege either.
    private static func discoverAsUser() async throws {
        let user = try UnprivilegedUser.make()
        defer { user.remove() }
        try await NamespacePair.with { pair in
            let receiver = try await onOwnThread {
                try CastReceiverCommandTests.Receiver(
                    command: ["/usr/sbin/ip", "netns", "exec", pair.b]
                        + (try user.command([
                            CastCommandLineTests.executable("cast-receiver"), "--host", pair.ipv4(pair.b), "--port",
                            "0", "--advertise", "--interface", "vB", "--name", "Study TV", "--seconds", "120",
                        ])),
                    environment: user.environment)
            }
            let result = await outcome {
                if getuid() == 0 {
                    #expect(try Self.userID(of: receiver.process.processIdentifier) == Int(UnprivilegedUser.uid))
                }
                let cast = CastCommandLineTests.executable("cast")
                // Runs until it has printed the device, then gets Ctrl-C (which ends it: 130).
                let discover = try await Self.run(
                    user, [cast, "discover", "--interface", "vA", "--ipv4", "--json"], in: pair.a,
                    interruptWhenPrinted: { $0.contains("\n") })
                #expect(discover.status == 130, "\(discover.stderr)")
                let found = try JSONValue(parsing: String(try #require(discover.stdout.split(separator: "\n").first)))
                #expect(found["event"] == "found")
                #expect(found["name"] == "Study TV")
                #expect(found["port"] == .integer(receiver.port))

                let status = try await Self.run(
                    user, [cast, "status", "--device", "study tv", "--interface", "vA", "--ipv4", "--json"], in: pair.a)
                #expect(status.status == 0, "\(status.stderr)")
                #expect(status.stderr.contains("found \"Study TV\""), "\(status.stderr)")
            }
            _ = try await onOwnThread { receiver.stop() }
            try result.get()
        }
    }
}
