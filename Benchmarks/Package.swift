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
                "RawCodecs",
            ],
            path: "EncodeBenchmarks",
            plugins: benchmarkPlugin
        ),
        // The C baselines: libvpx, libsamplerate and libopus called directly.
        .target(
            name: "RawCodecs",
            path: "RawCodecs",
            linkerSettings: [.linkedLibrary("vpx"), .linkedLibrary("opus"), .linkedLibrary("samplerate")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
