// swift-tools-version: 6.1
//
// Benchmarks live in their own package so that apps embedding the Cast
// modules never pull package-benchmark. Run with `make bench` from the root.

import PackageDescription

let package = Package(
    name: "swift-cast-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "swift-cast", path: "../"),
        .package(
            url: "https://github.com/ordo-one/package-benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
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
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        )
    ],
    swiftLanguageModes: [.v6]
)
