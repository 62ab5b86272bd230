import CastEmulator
import CastKit
import CastRemoteDisplay
import Foundation
import NIOConcurrencyHelpers

/// `make soak`: SOAK_MINUTES (default 30) of 720p30 Remote Display with
/// audio to an emulator dropping 2 % of datagrams, its sender reconnected
/// every minute, while a second session cycles media through
/// load/pause/seek/stop on another emulator. Every 10 s it prints the
/// process's resident memory, file descriptors and threads; at the end the
/// memory slope after a two-minute warm-up, and what each receiver saw.
/// Built with AddressSanitizer, LeakSanitizer reports any leak at exit.
@main
enum Soak {
    struct Sample {
        var seconds: Double
        var residentKiB: Int
        var descriptors: Int
        var threads: Int
    }

    static let quiet = CastLogger(filter: CastLogFilter(minimumLevel: .none))

    /// Writes a line to stdout at once: LeakSanitizer ends the process without flushing stdio.
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func main() async throws {
        let minutes = Double(ProcessInfo.processInfo.environment["SOAK_MINUTES"] ?? "") ?? 30
        let end = ContinuousClock.now + .milliseconds(Int(minutes * 60_000))
        let started = ContinuousClock.now

        let mirrorReceiver = try CastEmulator(
            configuration: CastEmulatorConfiguration(name: "Soak Mirror"), logger: Self.quiet)
        mirrorReceiver.streaming.impairment = NetworkImpairment(lossRate: 0.02, seed: 7)
        try await mirrorReceiver.start()
        let mediaReceiver = try CastEmulator(
            configuration: CastEmulatorConfiguration(name: "Soak Media"), logger: Self.quiet)
        try await mediaReceiver.start()

        let mirroring = try await Self.manager(for: mirrorReceiver, app: CastApplicationID.mirroring)
        let media = try await Self.manager(for: mediaReceiver, app: CastApplicationID.defaultMediaReceiver)

        let counters = Counters()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await Self.stream(mirroring, until: end, counters: counters) }
            group.addTask { await Self.reconnect(mirrorReceiver, every: .seconds(60), until: end, counters: counters) }
            group.addTask { try await Self.cycleMedia(media, until: end, counters: counters) }
            group.addTask { await Self.sample(from: started, until: end, counters: counters) }
            try await group.waitForAll()
        }
        await mirroring.manager.endSession(stoppingApplication: true)
        await media.manager.endSession(stoppingApplication: true)
        let report = mirrorReceiver.streamingReport
        await mirrorReceiver.stop()
        await mediaReceiver.stop()
        Self.summarize(counters, report: report)
    }

    // MARK: The load

    static func manager(for emulator: CastEmulator, app: String) async throws -> (
        manager: SessionManager, device: CastDevice
    ) {
        var options = CastOptions(
            receiverApplicationID: app,
            reconnectPolicy: ReconnectPolicy(
                initialDelay: .milliseconds(200), multiplier: 1.5, maximumDelay: .seconds(2), jitter: 0.2,
                maximumAttempts: 100),
            sessionStore: nil,
            logger: Self.quiet)
        options.deviceAuthentication = .required(trusting: [emulator.trustAnchor])
        let discovery = DiscoveryManager(logger: Self.quiet)
        let device = await discovery.addKnownHost(IPAddress("127.0.0.1")!, port: emulator.port)
        return (SessionManager(options: options, discoveryManager: discovery), device)
    }

    /// Streams 720p30 with audio; a session the receiver ended is begun again.
    static func stream(
        _ link: (manager: SessionManager, device: CastDevice), until end: ContinuousClock.Instant, counters: Counters
    ) async throws {
        let session = try await link.manager.startSession(on: link.device)
        guard let channel = RemoteDisplayChannel(logger: Self.quiet) else { throw CancellationError() }
        session.add(channel)
        var display: RemoteDisplaySession?
        var frame = 0
        while ContinuousClock.now < end {
            do {
                if display == nil || display?.state != .active {
                    if let current = display, case .interrupted = current.state {
                        try await Task.sleep(for: .milliseconds(100))
                        continue
                    }
                    display = try await channel.beginSession(configuration: RemoteDisplayConfiguration())
                    counters.add(\.sessionsBegun)
                }
                guard let display else { continue }
                let signal = try TestSignal(
                    width: 1_280, height: 720, frameRate: 30, start: .now.advanced(by: .milliseconds(50)))
                frame += try await signal.stream(seconds: 5, to: display, firstFrame: 0)
                counters.set(\.framesHanded, frame)
            } catch {
                counters.add(\.streamErrors)
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        display?.stop()
    }

    /// Drops every sender socket, as a network blip does; the session manager reconnects.
    static func reconnect(
        _ emulator: CastEmulator, every interval: Duration, until end: ContinuousClock.Instant, counters: Counters
    ) async {
        while ContinuousClock.now + interval < end {
            try? await Task.sleep(for: interval)
            await emulator.closeConnections()
            counters.add(\.reconnections)
        }
    }

    /// LOAD, PAUSE, SEEK, PLAY, STOP, over and over, on its own session.
    static func cycleMedia(
        _ link: (manager: SessionManager, device: CastDevice), until end: ContinuousClock.Instant, counters: Counters
    ) async throws {
        let session = try await link.manager.startSession(on: link.device)
        var round = 0
        while ContinuousClock.now < end {
            round += 1
            do {
                guard let client = session.remoteMediaClient else { throw CancellationError() }
                var metadata = MediaMetadata(type: .movie)
                metadata.setString("Soak \(round)", forKey: .title)
                try await client.load(
                    MediaLoadRequestData(
                        mediaInformation: MediaInformation(
                            contentID: "https://media.example/soak-\(round % 10).mp4", contentType: "video/mp4",
                            metadata: metadata, duration: 600)))
                try await Task.sleep(for: .milliseconds(500))
                try await client.pause()
                try await client.seek(MediaSeekOptions(interval: Double(round % 500)))
                try await client.play()
                try await Task.sleep(for: .milliseconds(500))
                try await client.stop()
                counters.add(\.mediaCycles)
            } catch {
                counters.add(\.mediaErrors)
                try await Task.sleep(for: .milliseconds(500))
            }
        }
    }

    // MARK: Measuring

    static func sample(from start: ContinuousClock.Instant, until end: ContinuousClock.Instant, counters: Counters)
        async
    {
        Self.say("seconds,rss_kib,fds,threads,frames,reconnections,media_cycles")
        while ContinuousClock.now < end {
            let sample = Sample(
                seconds: (ContinuousClock.now - start).inSeconds, residentKiB: Self.residentKiB(),
                descriptors: Self.descriptorCount(), threads: Self.threadCount())
            counters.record(sample)
            let snapshot = counters.snapshot
            Self.say(
                "\(Int(sample.seconds)),\(sample.residentKiB),\(sample.descriptors),\(sample.threads),"
                    + "\(snapshot.framesHanded),\(snapshot.reconnections),\(snapshot.mediaCycles)")
            try? await Task.sleep(for: .seconds(10))
        }
    }

    static func residentKiB() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
            let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / 1_024
    }

    static func descriptorCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    static func threadCount() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") })
        else { return 0 }
        return Int(line.split(separator: "\t").last ?? "") ?? 0
    }

    /// The least-squares slope of resident memory after the warm-up, KiB per minute.
    static func slope(_ samples: [Sample], after warmUp: Double = 120) -> Double? {
        let points = samples.filter { $0.seconds >= warmUp }
        guard points.count >= 3 else { return nil }
        let meanX = points.map(\.seconds).reduce(0, +) / Double(points.count)
        let meanY = points.map { Double($0.residentKiB) }.reduce(0, +) / Double(points.count)
        let covariance = points.map { ($0.seconds - meanX) * (Double($0.residentKiB) - meanY) }.reduce(0, +)
        let variance = points.map { ($0.seconds - meanX) * ($0.seconds - meanX) }.reduce(0, +)
        return variance > 0 ? covariance / variance * 60 : nil
    }

    static func summarize(_ counters: Counters, report: StreamingReport?) {
        let snapshot = counters.snapshot
        let samples = snapshot.samples
        let after = samples.filter { $0.seconds >= 120 }
        Self.say("--- soak summary ---")
        if let slope = Self.slope(samples) {
            Self.say(String(format: "resident memory slope after 2 min: %.1f KiB/min", slope))
        }
        if let first = after.first, let last = after.last {
            Self.say(
                "resident memory: \(first.residentKiB) KiB at \(Int(first.seconds)) s, \(last.residentKiB) KiB at end")
        }
        Self.say(
            "file descriptors after 2 min: \(after.map(\.descriptors).min() ?? 0)…\(after.map(\.descriptors).max() ?? 0)"
        )
        Self.say("threads after 2 min: \(after.map(\.threads).min() ?? 0)…\(after.map(\.threads).max() ?? 0)")
        Self.say(
            "frames handed \(snapshot.framesHanded), Remote Display sessions \(snapshot.sessionsBegun), stream errors "
                + "\(snapshot.streamErrors), reconnections \(snapshot.reconnections), media cycles "
                + "\(snapshot.mediaCycles), media errors \(snapshot.mediaErrors)")
        if let video = report?.video {
            Self.say(
                "last stream: video \(video.framesDecoded) decoded, \(video.framesLost) lost, \(video.framesLate) late")
        }
    }
}

/// The soak's counters and samples, shared by its tasks.
final class Counters: Sendable {
    struct Values {
        var framesHanded = 0
        var sessionsBegun = 0
        var streamErrors = 0
        var reconnections = 0
        var mediaCycles = 0
        var mediaErrors = 0
        var samples: [Soak.Sample] = []
    }

    private let values = NIOLockedValueBox(Values())

    var snapshot: Values { self.values.withLockedValue { $0 } }

    func add(_ counter: WritableKeyPath<Values, Int>) {
        self.values.withLockedValue { $0[keyPath: counter] += 1 }
    }

    func set(_ counter: WritableKeyPath<Values, Int>, _ value: Int) {
        self.values.withLockedValue { $0[keyPath: counter] = value }
    }

    func record(_ sample: Soak.Sample) {
        self.values.withLockedValue { $0.samples.append(sample) }
    }
}
