import Foundation

// `cast-fuzz TARGET [ARGUMENTS…]`: every fuzz target in one executable, so
// `make fuzz` builds and links once (twelve executables took twelve builds
// and twelve AddressSanitizer links). ARGUMENTS are libFuzzer's options and
// corpus folders under `-DFUZZING`, else the files to replay (see
// `FuzzReplay`). Three targets also write their seed corpus: `device-auth
// --seed FILE`, `mpris-call --seed DIR` and `tray-call --seed DIR`.

/// One fuzz target: the function that takes an input, and what `--seed PATH`
/// writes, if the target makes its own seeds.
struct FuzzTarget {
    let fuzz: ([UInt8]) -> Void
    var writeSeed: ((String) -> Bool)? = nil
    var prepare: () -> Bool = { true }
}

let targets: [String: FuzzTarget] = [
    "dns-message": FuzzTarget(fuzz: fuzzDNSMessage),
    "device-cache": FuzzTarget(fuzz: fuzzDeviceCache),
    "cast-frame": FuzzTarget(fuzz: fuzzCastFrame),
    "status-json": FuzzTarget(fuzz: fuzzStatusJSON),
    "offer-answer": FuzzTarget(fuzz: fuzzOfferAnswer),
    "rtcp": FuzzTarget(fuzz: fuzzRTCP),
    "rtp": FuzzTarget(fuzz: fuzzRTP),
    "media-files": FuzzTarget(fuzz: fuzzMediaFiles),
    // The identity is made before libFuzzer starts: swift-crypto's key set-up
    // allocates once for the process, which libFuzzer would count against an input.
    "device-auth": FuzzTarget(
        fuzz: DeviceAuthFuzzing.verify,
        writeSeed: { path in
            DeviceAuthFuzzing.seed().map { FileManager.default.createFile(atPath: path, contents: Data($0)) } ?? false
        },
        prepare: { DeviceAuthFuzzing.identity != nil && DeviceAuthFuzzing.tls != nil }),
    "revocation-list": FuzzTarget(
        fuzz: RevocationListFuzzing.verify,
        prepare: { RevocationListFuzzing.issuer != nil && RevocationListFuzzing.identity != nil }),
    "trust-anchors": FuzzTarget(fuzz: fuzzTrustAnchors),
    "local-media": FuzzTarget(fuzz: fuzzLocalMedia),
    "portal-reply": FuzzTarget(fuzz: fuzzPortalReply),
    "mpris-call": FuzzTarget(
        fuzz: MPRISFuzzing.call,
        writeSeed: { DBusSeeds.write(MPRISFuzzing.seeds(), to: $0) }),
    "tray-call": FuzzTarget(fuzz: TrayFuzzing.call, writeSeed: { DBusSeeds.write(TrayFuzzing.seeds(), to: $0) }),
    "speakers-file": FuzzTarget(fuzz: fuzzSpeakersFile),
]

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, let target = targets[name] else {
    FileHandle.standardError.write(
        Data("usage: cast-fuzz TARGET [ARGUMENTS…]; targets: \(targets.keys.sorted().joined(separator: ", "))\n".utf8))
    exit(64)
}
let rest = Array(arguments.dropFirst())
if rest.first == "--seed" {
    guard rest.count == 2, let writeSeed = target.writeSeed else {
        FileHandle.standardError.write(Data("cast-fuzz: \(name) has no --seed, or it needs one path\n".utf8))
        exit(64)
    }
    exit(writeSeed(rest[1]) ? 0 : 1)
}
guard target.prepare() else {
    FileHandle.standardError.write(Data("cast-fuzz: \(name) could not prepare what it needs\n".utf8))
    exit(1)
}
exit(FuzzReplay.run(rest, target.fuzz))
