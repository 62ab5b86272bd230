// swift-tools-version: 6.1
//
// Benchmarks live in their own package so that apps embedding the Cast
// modules never pull package-benchmark. Run with `make bench` from the root.

import PackageDescription

let benchmarkPlugin: [Target.PluginUsage] = [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]

let package = Package(
    name: "swift-cast-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "swift-cast", path: "../"),
        .package(
            url: "https://github.com/ordo-one/package-benchmark.git",
            from: "1.38.1",
            traits: ["MallocInterposer"]
        ),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "LoggingBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "CastLogging", package: "swift-cast"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "LoggingBenchmarks",
            plugins: benchmarkPlugin
        ),
        .executableTarget(
            name: "EncodeBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "CastRemoteDisplay", package: "swift-cast"),
                "RawCodecs", "BenchmarkSupport",
            ],
            path: "EncodeBenchmarks",
            plugins: benchmarkPlugin
        ),
        .executableTarget(
            name: "LatencyBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "CastRemoteDisplay", package: "swift-cast"),
                .product(name: "CastEmulator", package: "swift-cast"),
                .product(name: "CastLogging", package: "swift-cast"),
                "BenchmarkSupport",
            ],
            path: "LatencyBenchmarks",
            plugins: benchmarkPlugin
        ),
        .executableTarget(
            name: "SpeakerBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "CastSpeakers", package: "swift-cast"),
                .product(name: "CastEmulator", package: "swift-cast"),
                .product(name: "CastLogging", package: "swift-cast"),
                .product(name: "CastDiscovery", package: "swift-cast"),
                .product(name: "CastTransport", package: "swift-cast"),
                "BenchmarkSupport",
            ],
            path: "SpeakerBenchmarks",
            plugins: benchmarkPlugin
        ),
        .executableTarget(
            name: "CaptureBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "CastCapture", package: "swift-cast"),
                .product(name: "CastRemoteDisplay", package: "swift-cast"),
                "RawCodecs", "BenchmarkSupport",
            ],
            path: "CaptureBenchmarks",
            plugins: benchmarkPlugin
        ),
        .executableTarget(
            name: "MediaServerBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "CastMediaServer", package: "swift-cast"),
                "BenchmarkSupport",
            ],
            path: "MediaServerBenchmarks",
            plugins: benchmarkPlugin
        ),
        .executableTarget(
            name: "TransportBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "CastTransport", package: "swift-cast"),
                .product(name: "CastEmulator", package: "swift-cast"),
                .product(name: "CastLogging", package: "swift-cast"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                "BenchmarkSupport",
            ],
            path: "TransportBenchmarks",
            plugins: benchmarkPlugin
        ),
        // Not a package-benchmark target: one comparison run against pychromecast
        // (scripts/measure-session-start.sh), printed as medians and a ratio.
        .executableTarget(
            name: "SessionStartComparison",
            dependencies: [
                .product(name: "CastKit", package: "swift-cast"),
                .product(name: "CastEmulator", package: "swift-cast"),
            ],
            // Not under Benchmarks/ directly: package-benchmark runs every executable there as a
            // benchmark, and this one is not (make bench runs it after them).
            path: "Comparisons/SessionStartComparison"
        ),
        // Not a package-benchmark target either: N devices on one cast-receiver,
        // our device links against pychromecast (scripts/measure-fleet.sh).
        .executableTarget(
            name: "FleetComparison",
            dependencies: [
                .product(name: "CastChannels", package: "swift-cast"),
                .product(name: "CastDiscovery", package: "swift-cast"),
                .product(name: "CastLogging", package: "swift-cast"),
                .product(name: "CastTransport", package: "swift-cast"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Comparisons/FleetComparison"
        ),
        // What benchmarks share: servers they start and stop, cast-receiver in a
        // process of its own, a mirroring session with it, CPU clocks.
        .target(
            name: "BenchmarkSupport",
            dependencies: [
                .product(name: "CastRemoteDisplay", package: "swift-cast"),
                .product(name: "CastChannels", package: "swift-cast"),
                .product(name: "CastTransport", package: "swift-cast"),
                .product(name: "CastLogging", package: "swift-cast"),
            ],
            path: "BenchmarkSupport"
        ),
        // The C baselines: libvpx, libsamplerate, libopus, and XCB + libyuv, called
        // directly; and an X client that draws a changing desktop.
        .target(
            name: "RawCodecs",
            path: "RawCodecs",
            linkerSettings: [
                .linkedLibrary("vpx"), .linkedLibrary("opus"), .linkedLibrary("samplerate"), .linkedLibrary("crypto"),
                .linkedLibrary("xcb"), .linkedLibrary("xcb-shm"), .linkedLibrary("yuv"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
