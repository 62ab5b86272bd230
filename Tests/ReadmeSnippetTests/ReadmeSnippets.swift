// swift-format-ignore-file
// (the snippets stay exactly as README.md shows them)
//
// Every Swift snippet of README.md, verbatim inside a function that supplies
// the names the snippet leaves to the reader (`device`, `samples`, …), so the
// build proves they compile. ReadmeSnippetTests checks the README still
// shows exactly these.

@_spi(Receiver) import CastDiscovery
import CastEmulator
import CastKit
import CastLogging
import CastRemoteDisplay
@_spi(Receiver) import CastTransport
import Foundation

enum ReadmeSnippets {
    static func logging(report: (CastLogRecord) -> Void) async {
        // Show what the SDK does: warnings everywhere, everything from the transport.
        var filter = CastLogFilter(minimumLevel: .warning)
        filter.setLevel(.verbose, forSubsystems: ["Transport.*"])
        CastLogger.shared.filter = filter
        CastLogger.shared.addSink(ClosureLogSink { record in print(record) })

        // Or, if your app bootstraps swift-log, receive everything there:
        CastLogger.shared.addSink(SwiftLogSink())

        // Or consume records as an asynchronous sequence (one per subscriber):
        for await record in CastLogger.shared.records() where record.level >= .error {
            report(record)
        }
    }

    static func encoding(samples: [Int16], send: (consuming EncodedFrame) -> Void) throws {
        let pool = try PixelBufferPool(width: 1280, height: 720)
        var encoder = try VideoEncoder(configuration: VideoEncoderConfiguration(width: 1280, height: 720))
        if var frame = pool.makeBuffer() {            // nil when all buffers are in use
            TestPattern().render(frame: 0, into: &frame)  // or draw into frame's planes yourself
            let encoded = try encoder.encode(frame, pts: .now)
            print(encoded.isKeyFrame, encoded.byteCount)
        }                                             // the buffer returns to the pool here

        let audio = try AudioFrameQueue()              // 48 kHz stereo float, 500 ms bound
        var input = try AudioInput(sourceSampleRate: 44_100, sourceChannelCount: 2, queue: audio)
        var opus = try AudioEncoder(queue: audio)
        _ = try input.enqueue(interleaved: samples /* [Int16] */, pts: .now)
        while let packet = try opus.encodeNextFrame() { send(packet) }
    }

    static func remoteDisplay(receiver: ReceiverChannel) async throws {
        guard let channel = RemoteDisplayChannel() else { return }  // nil: VP8 or Opus unusable here
        let session = try await channel.launchSession(              // launches the mirroring app afresh
            configuration: RemoteDisplayConfiguration(), on: receiver)  // on receiver-0's connection, offers
        for await state in session.stateUpdates() { print(state) }  // active, interrupted, ended(…)
        if var frame = session.createPixelBuffer() {                  // nil while all are in use
            TestPattern().render(frame: 0, into: &frame)              // or draw the app's picture
            _ = try session.enqueueVideoFrame(frame, pts: .now)       // encoded and sent off-thread
        }
        if var sound = session.newAudioBuffer() {                     // 10 ms of 48 kHz float
            sound.frameCount = 480
            try session.enqueueAudio(sound, pts: .now)
        }
        session.targetDelay = .milliseconds(250)                      // in-band, at once
        print(session.currentStatistics)                              // also statistics(), every 500 ms
        await channel.endSession(stoppingApplication: true)           // STOP by the app's session id
    }

    static func discovery() async throws {
        let discovery = DiscoveryManager(configuration: DiscoveryConfiguration(
            filter: DeviceFilter(requiredCapabilities: [.videoOut, .audioOut])))
        try await discovery.start()
        await discovery.addKnownHost(IPAddress("192.168.1.20")!)  // where multicast is blocked
        for await event in discovery.events() {                  // found / updated / lost
            print(event, discovery.devices.map(\.friendlyName))   // sorted by friendly name
        }
        await discovery.setScanMode(.passive)                     // when the device picker closes
    }

    static func emulatorAndTransport() async throws {
        let emulator = try CastEmulator()
        try await emulator.start()
        let connection = CastConnection(
            host: "127.0.0.1", port: emulator.port,
            configuration: CastConnectionConfiguration(
                deviceAuthentication: .required(trusting: [emulator.trustAnchor])))
        try await connection.connect()                          // TLS, then device auth
        try await connection.openVirtualConnection(to: "receiver-0")
        let replies = connection.messages(namespace: "urn:x-cast:com.google.cast.receiver")
        try await connection.send(namespace: "urn:x-cast:com.google.cast.receiver", to: "receiver-0",
                                  text: #"{"type":"GET_STATUS","requestId":1}"#)
        for await state in connection.stateUpdates() { print(state) }  // …, disconnected(reason)
        _ = replies
    }

    static func sessions(device: CastDevice) async throws {
        let context = CastContext(options: CastOptions(receiverApplicationID: CastApplicationID.defaultMediaReceiver))
        Task {
            for await event in context.sessionManager.events() {  // starting, started, suspended,
                print(event)                                       // resuming, resumed, ending, ended…
            }
        }
        try await context.start()               // passive discovery; resumes a session saved in
        await context.resumptionFinished()      // $XDG_STATE_HOME/<app>/cast-session.json
        let session: CastSession
        if let resumed = await context.sessionManager.currentSession {  // after a crash
            session = resumed
        } else {
            session = try await context.sessionManager.startSession(on: device)   // launch or join
        }
        let chat = try GenericChannel(namespace: "urn:x-cast:com.example.chat")
        session.add(chat)                                     // attaches when the app lists it
        try await chat.sendTextMessage(#"{"hello":"tv"}"#)
        try await session.receiver.setVolume(0.4)

        if let media = session.remoteMediaClient {            // when the app plays media
            var movie = MediaMetadata(type: .movie)
            movie.setString("Big Buck Bunny", forKey: .title)
            try await media.load(MediaLoadRequestData(mediaInformation: MediaInformation(
                contentID: "https://example.com/bbb.mp4", contentType: "video/mp4", metadata: movie)))
            try await media.seek(MediaSeekOptions(interval: 30))
            for await case .statusChanged(let status) in media.events() {  // merged partial updates
                print(status?.playerState as Any, media.approximateStreamPosition() as Any)
            }
        }
        await context.sessionManager.endSession(stoppingApplication: true)
    }
}
