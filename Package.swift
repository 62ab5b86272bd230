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

let package = Package(
    name: "swift-cast",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CastLogging", targets: ["CastLogging"]),
        .library(name: "CastRemoteDisplay", targets: ["CastRemoteDisplay"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2")
    ],
    targets: [
        // MARK: Product modules

        .target(
            name: "CastLogging",
            dependencies: [.product(name: "Logging", package: "swift-log")],
            path: "Modules/Logging",
            swiftSettings: strictSettings
        ),

        .target(
            name: "CastRemoteDisplay",
            dependencies: ["CastLogging", "CVPX", "COpus", "CSampleRate"],
            path: "Modules/RemoteDisplay",
            swiftSettings: strictSettings
        ),

        // MARK: System libraries (found through pkg-config)

        .systemLibrary(
            name: "CVPX",
            path: "Modules/System/CVPX",
            pkgConfig: "vpx",
            providers: [.apt(["libvpx-dev"])]
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
            name: "COpenSSL",
            path: "Modules/System/COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),

        // MARK: Tests

        .testTarget(
            name: "CastLoggingTests",
            dependencies: ["CastLogging"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CastRemoteDisplayTests",
            dependencies: ["CastRemoteDisplay", "CVPX", "COpus"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "SystemLibraryTests",
            dependencies: ["CVPX", "COpus", "CSampleRate", "COpenSSL"],
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
