// swift-tools-version: 6.1
//
// The Google Cast sender framework for Linux. README.md maps the modules;
// Docs/DESIGN.md explains how the pieces fit together.

import PackageDescription

/// Settings every Swift target shares: Swift 6 language mode is the package
/// default; complete strict concurrency is implied by it and stated here so a
/// reader does not have to know that.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// Products of other packages that several targets use, each named once.
enum Library {
    static let nioConcurrencyHelpers = Target.Dependency.product(name: "NIOConcurrencyHelpers", package: "swift-nio")
    static let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
    static let nioCore = Target.Dependency.product(name: "NIOCore", package: "swift-nio")
    static let nioPosix = Target.Dependency.product(name: "NIOPosix", package: "swift-nio")
    static let swiftProtobuf = Target.Dependency.product(name: "SwiftProtobuf", package: "swift-protobuf")
    static let nioSSL = Target.Dependency.product(name: "NIOSSL", package: "swift-nio-ssl")
    static let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto")
    static let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")
}

let package = Package(
    name: "swift-cast",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CastCommon", targets: ["CastCommon"]),
        .library(name: "CastLogging", targets: ["CastLogging"]),
        .library(name: "CastDiscovery", targets: ["CastDiscovery"]),
        .library(name: "CastTransport", targets: ["CastTransport"]),
        .library(name: "CastChannels", targets: ["CastChannels"]),
        .library(name: "CastMedia", targets: ["CastMedia"]),
        .library(name: "CastKit", targets: ["CastKit"]),
        .library(name: "CastUI", targets: ["CastUI"]),
        .library(name: "CastTerminalUI", targets: ["CastTerminalUI"]),
        .library(name: "CastMPRIS", targets: ["CastMPRIS"]),
        .library(name: "CastSystemSleep", targets: ["CastSystemSleep"]),
        .library(name: "CastTray", targets: ["CastTray"]),
        .library(name: "CastStreaming", targets: ["CastStreaming"]),
        .library(name: "CastRemoteDisplay", targets: ["CastRemoteDisplay"]),
        .library(name: "CastSoundCapture", targets: ["CastSoundCapture"]),
        .library(name: "CastCapture", targets: ["CastCapture"]),
        .library(name: "CastSpeakers", targets: ["CastSpeakers"]),
        .library(name: "CastMediaServer", targets: ["CastMediaServer"]),
        .library(name: "CastLocalMedia", targets: ["CastLocalMedia"]),
        .library(name: "CastEmulator", targets: ["CastEmulator"]),
        .executable(name: "cast", targets: ["cast"]),
        .executable(name: "cast-receiver", targets: ["cast-receiver"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-protobuf.git", from: "1.39.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        // MARK: Product modules

        // What every module shares: the control channel's endpoint ids, the
        // event fan-out behind every observable stream, an HTTP fetch on NIO.
        .target(
            name: "CastCommon",
            dependencies: [
                Library.nioConcurrencyHelpers,
                Library.nioCore,
                .product(name: "NIOHTTP1", package: "swift-nio"),
                Library.nioPosix,
                Library.nioSSL,
            ],
            path: "Modules/Common",
            swiftSettings: strictSettings
        ),

        .target(
            name: "CastLogging",
            dependencies: [
                Library.logging,
                Library.nioConcurrencyHelpers,
            ],
            path: "Modules/Logging",
            swiftSettings: strictSettings
        ),

        .target(
            name: "CastDiscovery",
            dependencies: [
                "CastCommon",
                "CastLogging",
                Library.nioCore,
                Library.nioConcurrencyHelpers,
                Library.nioPosix,
                Library.logging,
            ],
            path: "Modules/Discovery",
            swiftSettings: strictSettings
        ),

        .target(
            name: "CastTransport",
            dependencies: [
                "CastCommon",
                "CastLogging",
                Library.nioCore,
                Library.nioConcurrencyHelpers,
                Library.nioPosix,
                Library.nioSSL,
                .product(name: "NIOTLS", package: "swift-nio"),
                Library.swiftProtobuf,
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                Library.crypto,
                Library.logging,
            ],
            path: "Modules/Transport",
            swiftSettings: strictSettings
        ),

        .target(
            name: "CastChannels",
            dependencies: [
                "CastCommon",
                "CastDiscovery",
                "CastLogging",
                "CastTransport",
                Library.logging,
                Library.nioConcurrencyHelpers,
                Library.nioCore,
            ],
            path: "Modules/Channels",
            swiftSettings: strictSettings
        ),

        .target(
            name: "CastMedia",
            dependencies: [
                "CastCommon",
                "CastLogging", "CastTransport", "CastChannels",
                Library.logging,
                Library.nioConcurrencyHelpers,
            ],
            path: "Modules/Media",
            swiftSettings: strictSettings
        ),

        .target(
            name: "CastKit",
            dependencies: [
                "CastCommon",
                "CastLogging",
                "CastDiscovery",
                "CastTransport",
                "CastChannels",
                "CastMedia",
                Library.logging,
                Library.nioCore,
                Library.nioConcurrencyHelpers,
                Library.nioPosix,
            ],
            path: "Modules/Kit",
            swiftSettings: strictSettings
        ),

        // The Cast button, device chooser, media controller and volume as
        // toolkit-free view-models (the SDK's UI layer without UIKit).
        .target(
            name: "CastUI",
            dependencies: [
                "CastCommon",
                "CastKit", "CastDiscovery", "CastTransport", "CastChannels", "CastMedia",
                Library.nioConcurrencyHelpers,
                Library.nioPosix,
            ],
            path: "Modules/UI",
            swiftSettings: strictSettings
        ),
        // A full-screen Cast controller for a terminal from CastUI's models
        // (termios only): its own product, so CastUI stays toolkit-free.
        .target(
            name: "CastTerminalUI",
            dependencies: ["CastUI", "CastKit", "CastChannels", Library.nioConcurrencyHelpers],
            path: "Modules/TerminalUI",
            swiftSettings: strictSettings
        ),

        // The desktop's media controls for the current Cast media session, as
        // an MPRIS player on the session bus: its own product, so apps that
        // do not want it never link libdbus.
        .target(
            name: "CastMPRIS",
            dependencies: [
                "CastUI", "CastKit", "CastDBus", Library.nioConcurrencyHelpers,
            ],
            path: "Modules/MPRIS",
            swiftSettings: strictSettings
        ),
        // A session that follows the machine's sleep (logind's PrepareForSleep on
        // the system bus): its own product, so sleep handling links neither the
        // MPRIS player nor the tray, over libdbus too.
        .target(
            name: "CastSystemSleep",
            dependencies: ["CastKit", "CastDBus", Library.nioConcurrencyHelpers],
            path: "Modules/SystemSleep",
            swiftSettings: strictSettings
        ),
        // The Cast menu in the desktop's tray (StatusNotifierItem + DBusMenu)
        // and desktop notifications: its own product, over libdbus too.
        .target(
            name: "CastTray",
            dependencies: [
                "CastUI", "CastKit", "CastDiscovery", "CastDBus", "CastCapture", "CastTransport", "CastLogging",
                Library.nioConcurrencyHelpers,
                Library.logging,
            ],
            path: "Modules/Tray",
            swiftSettings: strictSettings
        ),
        // A D-Bus connection over libdbus, shared by the screen-cast portal
        // (CastCapture), the MPRIS player (CastMPRIS), sleep handling
        // (CastSystemSleep) and the tray (CastTray);
        // no product of its own.
        .target(
            name: "CastDBus",
            dependencies: ["CDBus"],
            path: "Modules/DBus",
            swiftSettings: strictSettings
        ),

        // Cast Streaming, after Open Screen's cast/streaming: the wire format
        // (RTP, RTCP, the frame cipher, Cast time), the sender engine, the
        // OFFER/ANSWER session and sound (Opus). No video codec: a sound-only
        // app (CastSpeakers) links none.
        .target(
            name: "CastStreaming",
            dependencies: [
                "CastCommon",
                "CastLogging", "CastTransport", "CastChannels", "COpus", "CSampleRate", "COpenSSL", "CTimerFD",
                Library.logging,
                Library.nioConcurrencyHelpers,
            ],
            path: "Modules/Streaming",
            swiftSettings: strictSettings
        ),
        // Remote Display: Cast Streaming with video, encoded by libvpx (VP8,
        // VP9), OpenH264 and libaom (AV1), pictures converted by libyuv.
        .target(
            name: "CastRemoteDisplay",
            dependencies: [
                "CastStreaming", "CastLogging", "CVPX", "CH264", "CAOM", "CYUV",
            ],
            path: "Modules/RemoteDisplay",
            swiftSettings: strictSettings
        ),

        // The desktop's sound for Remote Display, through libpulse (PulseAudio
        // or PipeWire's pulse server): its own product, so a sound-only app
        // (CastSpeakers) never links X11, PipeWire's video or D-Bus.
        .target(
            name: "CastSoundCapture",
            dependencies: [
                "CastStreaming", "CastCommon", "CPulse",
                Library.nioConcurrencyHelpers,
            ],
            path: "Modules/SoundCapture",
            swiftSettings: strictSettings
        ),
        // Screen capture for Remote Display (X11 through XCB, Wayland through
        // the portal and PipeWire) and desktop mirroring, with the sound of
        // CastSoundCapture, which it re-exports: its own product, so apps that
        // do not capture never link X11 or PipeWire.
        .target(
            name: "CastCapture",
            dependencies: [
                "CastSoundCapture", "CastRemoteDisplay", "CastChannels", "CastDiscovery", "CastLogging",
                "CastTransport", "CXCB", "CYUV", "CPipeWire", "CDBus", "CastDBus",
                Library.nioConcurrencyHelpers,
            ],
            path: "Modules/Capture",
            swiftSettings: strictSettings
        ),
        // Cast devices as the desktop's sound outputs: a sink per device in the
        // user's sound server (libpulse; on PipeWire a node of its own, through
        // libpipewire, that reports the device's latency), streaming while sound
        // reaches it. Its own product, like CastSoundCapture, whose sound
        // recording it uses.
        .target(
            name: "CastSpeakers",
            dependencies: [
                "CastSoundCapture", "CastStreaming", "CastChannels", "CastTransport", "CastDiscovery", "CastCommon",
                "CastLogging", "CPulse", "CPipeWire",
                Library.logging,
                Library.nioConcurrencyHelpers,
            ],
            path: "Modules/Speakers",
            swiftSettings: strictSettings
        ),
        // Serving this machine's files to receivers, on Hummingbird: its own
        // product, so apps that do not serve files never link an HTTP server.
        .target(
            name: "CastMediaServer",
            dependencies: [
                "CastCommon", "CastLogging",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                Library.logging,
                Library.nioCore,
                Library.nioConcurrencyHelpers,
                Library.nioPosix,
            ],
            path: "Modules/MediaServer",
            swiftSettings: strictSettings
        ),
        // Local files, folders and playlists served as a device can play them
        // (probed, converted, their subtitles and sound chosen): what `cast play`
        // does with files, for any app; over CastMediaServer.
        .target(
            name: "CastLocalMedia",
            dependencies: ["CastMediaServer", "CastMedia", "CastCommon", "CastLogging"],
            path: "Modules/LocalMedia",
            swiftSettings: strictSettings
        ),

        // MARK: Receiver emulator (tests, examples, other projects' CI)

        .target(
            name: "CastEmulator",
            dependencies: [
                "CastCommon",
                "CastLogging",
                "CastDiscovery",
                "CastTransport",
                "CastChannels",
                "CastMedia",
                "CastStreaming",
                "CVPX",
                "CAVCodec",
                "COpus",
                "CYUV",
                Library.nioCore,
                Library.nioConcurrencyHelpers,
                Library.nioPosix,
                .product(name: "NIOHTTP1", package: "swift-nio"),
                Library.nioSSL,
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                Library.crypto,
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                Library.logging,
                Library.swiftProtobuf,
            ],
            path: "Modules/Emulator",
            swiftSettings: strictSettings
        ),

        // MARK: Example senders

        .executableTarget(
            name: "cast",
            dependencies: [
                "CastKit", "CastUI", "CastTerminalUI", "CastMPRIS", "CastSystemSleep", "CastTray", "CastRemoteDisplay",
                "CastCapture", "CastSpeakers",
                "CastMediaServer", "CastLocalMedia", "CastEmulator",
                Library.argumentParser,
                Library.nioConcurrencyHelpers,
                "CastTransport", "CastCommon",
            ],
            path: "Examples/Cast",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "cast-receiver",
            dependencies: [
                "CastEmulator", "CastKit", "CastCommon",
                Library.argumentParser,
            ],
            path: "Examples/CastReceiver",
            swiftSettings: strictSettings
        ),
        // Short samples, each embedding only the modules it names.
        .executableTarget(
            name: "sample-discover-devices",
            dependencies: ["CastDiscovery"],
            path: "Examples/Samples/DiscoverDevices",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "sample-custom-channel",
            dependencies: ["CastChannels", "CastDiscovery"],
            path: "Examples/Samples/CustomChannel",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "sample-egl-screen",
            dependencies: ["CastRemoteDisplay", "CastChannels", "CastDiscovery", "CEGL"],
            path: "Examples/Samples/EGLScreen",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "sample-play-film",
            dependencies: ["CastKit", "CastLocalMedia"],
            path: "Examples/Samples/PlayFilm",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "sample-mirror-screen",
            dependencies: ["CastCapture", "CastChannels", "CastDiscovery"],
            path: "Examples/Samples/MirrorScreen",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "sample-rendered-screen",
            dependencies: ["CastRemoteDisplay", "CastChannels", "CastDiscovery"],
            path: "Examples/Samples/RenderedScreen",
            swiftSettings: strictSettings
        ),

        // MARK: System libraries (found through pkg-config; libyuv has none and is
        // linked by name, as is libpulse, whose pkg-config flags SwiftPM refuses)

        .systemLibrary(
            name: "CVPX",
            path: "Modules/System/CVPX",
            pkgConfig: "vpx",
            providers: [.apt(["libvpx-dev"])]
        ),
        .systemLibrary(
            name: "CH264",
            path: "Modules/System/CH264",
            pkgConfig: "openh264",
            providers: [.apt(["libopenh264-dev"])]
        ),
        .systemLibrary(
            name: "CAOM",
            path: "Modules/System/CAOM",
            pkgConfig: "aom",
            providers: [.apt(["libaom-dev"])]
        ),
        .systemLibrary(
            name: "CAVCodec",
            path: "Modules/System/CAVCodec",
            pkgConfig: "libavcodec",
            providers: [.apt(["libavcodec-dev"])]
        ),
        .systemLibrary(
            name: "COpus",
            path: "Modules/System/COpus",
            pkgConfig: "opus",
            providers: [.apt(["libopus-dev"])]
        ),
        .systemLibrary(
            name: "CSampleRate",
            path: "Modules/System/CSampleRate",
            pkgConfig: "samplerate",
            providers: [.apt(["libsamplerate0-dev"])]
        ),
        .systemLibrary(
            name: "CTimerFD",
            path: "Modules/System/CTimerFD"
        ),
        .systemLibrary(
            name: "CYUV",
            path: "Modules/System/CYUV",
            providers: [.apt(["libyuv-dev"])]
        ),
        .systemLibrary(
            name: "CXCB",
            path: "Modules/System/CXCB",
            pkgConfig: "xcb",
            providers: [
                .apt([
                    "libxcb1-dev", "libxcb-shm0-dev", "libxcb-xfixes0-dev", "libxcb-damage0-dev", "libxcb-randr0-dev",
                ])
            ]
        ),
        .systemLibrary(
            name: "CPipeWire",
            path: "Modules/System/CPipeWire",
            pkgConfig: "libpipewire-0.3",
            providers: [.apt(["libpipewire-0.3-dev"])]
        ),
        .systemLibrary(
            name: "CDBus",
            path: "Modules/System/CDBus",
            pkgConfig: "dbus-1",
            providers: [.apt(["libdbus-1-dev"])]
        ),
        .systemLibrary(
            name: "CPulse",
            path: "Modules/System/CPulse",
            providers: [.apt(["libpulse-dev"])]
        ),
        .systemLibrary(
            name: "CEGL",
            path: "Modules/System/CEGL",
            pkgConfig: "egl",
            providers: [.apt(["libegl-dev", "libgles-dev", "libegl-mesa0"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            path: "Modules/System/COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),

        // MARK: Fuzz targets (Tests/Fuzz): one executable, `cast-fuzz TARGET`,
        // with a folder per parser. Built normally it replays a corpus;
        // `make fuzz` builds it once with libFuzzer and ASan
        // (`-sanitize=fuzzer,address -DFUZZING`) and runs each target.
        .executableTarget(
            name: "cast-fuzz",
            dependencies: [
                "CastDiscovery", "CastTransport", "CastChannels", "CastMedia", "CastStreaming", "CastRemoteDisplay",
                "CastEmulator",
                "CastMediaServer", "CastCapture", "CastDBus", "CDBus", "CastMPRIS", "CastTray", "CastUI", "CastKit",
                "CastSpeakers",
                Library.nioCore,
            ],
            path: "Tests/Fuzz",
            exclude: [
                "CastFrame/Corpus", "DNSMessage/Corpus", "DeviceAuth/Corpus", "DeviceCache/Corpus", "LocalMedia/Corpus",
                "MediaFiles/Corpus", "MprisCall/Corpus", "OfferAnswer/Corpus", "PortalReply/Corpus", "RTCP/Corpus",
                "RTP/Corpus", "RevocationList/Corpus", "SpeakersFile/Corpus", "StatusJSON/Corpus", "TrayCall/Corpus",
                "TrustAnchors/Corpus",
                "lsan.supp",
            ],
            swiftSettings: strictSettings),

        // `make soak` (Tests/Soak): 30 minutes of streaming, reconnections and media, memory sampled.
        .executableTarget(
            name: "cast-soak",
            dependencies: [
                "CastEmulator", "CastKit", "CastRemoteDisplay",
                Library.nioConcurrencyHelpers,
            ],
            path: "Tests/Soak", swiftSettings: strictSettings),

        // MARK: Tests

        .target(
            name: "CastTestSupport",
            dependencies: [
                "CastTransport", "CastChannels", "CastDiscovery", "CastEmulator", "CastLogging", "CastRemoteDisplay",
                Library.nioConcurrencyHelpers,
                Library.nioCore,
                Library.nioPosix,
            ],
            path: "Tests/CastTestSupport",
            exclude: ["screencast_portal.py"],
            swiftSettings: strictSettings
        ),
        // An X client that draws on a test's Xvfb, for the capture and CLI tests
        // (its own target: the other test targets never link XCB).
        .target(
            name: "CastX11TestSupport",
            dependencies: ["CXCB", "CastTestSupport"],
            path: "Tests/CastX11TestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CastLoggingTests",
            dependencies: ["CastLogging", Library.logging],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CastTransportTests",
            dependencies: [
                "CastTestSupport",
                "CastTransport",
                "CastEmulator",
                "CastLogging",
                Library.nioConcurrencyHelpers,
                Library.nioCore,
                .product(name: "NIOEmbedded", package: "swift-nio"),
                Library.nioPosix,
                .product(name: "NIOTestUtils", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                Library.swiftProtobuf,
                .product(name: "X509", package: "swift-certificates"),
                Library.crypto,
            ],
            // Real Cast device chains and revocation lists, Open Screen's and
            // Chromium's public test data (each file or README names its source).
            resources: [.copy("CastDeviceChains"), .copy("CastRevocationLists")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CastDiscoveryTests",
            dependencies: [
                "CastTestSupport",
                "CastDiscovery",
                "CastEmulator",
                "CastLogging",
                Library.logging,
                Library.nioCore,
                Library.nioConcurrencyHelpers,
                Library.nioPosix,
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CastChannelsTests",
            dependencies: [
                "CastTestSupport", "CastChannels", "CastDiscovery", "CastEmulator", "CastLogging", "CastTransport",
                Library.nioConcurrencyHelpers,
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CastMediaTests",
            dependencies: ["CastMedia", "CastChannels"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CastKitTests",
            dependencies: [
                "CastTestSupport", "CastKit", "CastEmulator", "CastRemoteDisplay", "CastStreaming", "CastMediaServer",
                "CastCommon",
                Library.nioCore,
                Library.nioPosix,
                "CastChannels",
                "CastMedia",
                Library.nioConcurrencyHelpers,
            ],
            // Payloads real receivers sent, verbatim with their sources (Conformance/README.md).
            resources: [.copy("Conformance")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CastUITests",
            dependencies: [
                "CastTestSupport", "CastUI", "CastKit", "CastEmulator", "CastMediaServer",
                Library.nioConcurrencyHelpers,
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CastTerminalUITests",
            dependencies: [
                "CastTestSupport", "CastTerminalUI", "CastUI", "CastKit", "CastEmulator",
                Library.nioConcurrencyHelpers,
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CastMPRISTests",
            dependencies: [
                "CastTestSupport", "CastMPRIS", "CastUI", "CastKit", "CastEmulator", "CastDBus",
                Library.nioConcurrencyHelpers,
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CastLocalMediaTests",
            dependencies: [
                "CastLocalMedia", "CastMediaServer", "CastMedia", "CastChannels", "CastTransport", "CastEmulator",
                "CastTestSupport",
                Library.nioConcurrencyHelpers,
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CastSystemSleepTests",
            dependencies: [
                "CastTestSupport", "CastSystemSleep", "CastKit", "CastEmulator", "CastDBus",
                Library.nioConcurrencyHelpers,
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CastTrayTests",
            dependencies: [
                "CastTray", "CastUI", "CastKit", "CastDiscovery", "CastDBus", "CDBus", "CastEmulator",
                "CastTestSupport",
                Library.nioConcurrencyHelpers,
            ],
            swiftSettings: strictSettings
        ),
        // README.md's snippets, compiled (and checked to be the README's).
        .testTarget(
            name: "ReadmeSnippetTests",
            dependencies: [
                "CastKit", "CastEmulator", "CastRemoteDisplay", "CastDiscovery", "CastTransport", "CastLogging",
            ],
            swiftSettings: strictSettings
        ),
        // Runs the built `cast` executable (a dependency, so it is built first).
        .testTarget(
            name: "CastCLITests",
            dependencies: [
                "cast", "cast-receiver", "sample-egl-screen", "CastKit", "CastEmulator", "CastTestSupport",
                "CastX11TestSupport", "CastRemoteDisplay", "CastCapture", "CastCommon", "CastSpeakers",
                Library.argumentParser,
                Library.nioConcurrencyHelpers,
                .product(name: "X509", package: "swift-certificates"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CastStreamingTests",
            dependencies: [
                "CastStreaming", "CastChannels", Library.nioConcurrencyHelpers,
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CastRemoteDisplayTests",
            dependencies: [
                "CastRemoteDisplay", "CastStreaming", "CVPX", "COpus", "CastEmulator", "CastChannels", "CastTransport",
                "CastLogging",
                "CastTestSupport",
                Library.nioConcurrencyHelpers,
            ],
            swiftSettings: strictSettings
        ),
        // The media server against independent clients (curl, Python's http.client).
        .testTarget(
            name: "CastMediaServerTests",
            dependencies: [
                "CastMediaServer", "CastTestSupport", "CastEmulator",
                .product(name: "Hummingbird", package: "hummingbird"),
                Library.logging,
                Library.nioConcurrencyHelpers,
                Library.nioCore,
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // Capture against real daemons the tests start: Xvfb, PulseAudio.
        .testTarget(
            name: "CastCaptureTests",
            dependencies: [
                "CastCapture", "CastSoundCapture", "CastRemoteDisplay", "CastEmulator", "CastTestSupport",
                "CastX11TestSupport",
                "CXCB", "CYUV", "CPipeWire",
                Library.nioConcurrencyHelpers,
                "CastChannels", "CastDiscovery", "CastTransport", "CastStreaming",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CastSpeakersTests",
            dependencies: [
                "CastSpeakers", "CastDiscovery", "CastEmulator", "CastTestSupport", "CastLogging", "CastTransport",
                "CastChannels", "CastCommon", "CastRemoteDisplay", "CPulse",
                Library.nioConcurrencyHelpers,
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SystemLibraryTests",
            dependencies: ["CVPX", "COpus", "CSampleRate", "COpenSSL", "CYUV"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
