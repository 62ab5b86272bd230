public import Foundation

/// What a device says about itself on its local setup server
/// (`/setup/eureka_info?params=name,device_info`): its manufacturer and
/// model, which its DNS-SD records do not carry — what the SDK's device
/// picker shows beside the name (`GCKDevice.manufacturer`, `.modelName`).
///
/// Read with ``fetch(for:configuration:on:)``. Every field is optional: the
/// answer differs between firmware (`../shared/conformance/076-eureka-info-chromecast.json`
/// and `078-eureka-info-android-tv.json`: the plain-HTTP endpoint of some
/// firmware ignores `params` and leaves `device_info` out).
public struct CastDeviceDetails: Sendable, Hashable {
    /// The name the user gave the device (`name`, or `device_info.name`).
    public var name: String?
    /// Who made the device (`device_info.manufacturer`), such as `Google Inc.` or `NVIDIA`.
    public var manufacturer: String?
    /// The model (`device_info.model_name`), such as `Chromecast` or `SHIELD Android TV`.
    public var modelName: String?
    /// The device's UPnP UDN (`device_info.ssdp_udn`, or `ssdp_udn`): its `id` TXT attribute with dashes.
    public var udn: String?
    /// The Cast firmware (`cast_build_revision`), such as `1.56.275994`.
    public var firmwareVersion: String?
    /// Whether the device has a display (`device_info.capabilities.display_supported`); `nil` when not said.
    public var hasDisplay: Bool?

    /// Creates details.
    public init(
        name: String? = nil, manufacturer: String? = nil, modelName: String? = nil, udn: String? = nil,
        firmwareVersion: String? = nil, hasDisplay: Bool? = nil
    ) {
        self.name = name
        self.manufacturer = manufacturer
        self.modelName = modelName
        self.udn = udn
        self.firmwareVersion = firmwareVersion
        self.hasDisplay = hasDisplay
    }

    /// The largest answer read, bytes: real answers are 1–2 KiB
    /// (the conformance payloads above); a larger one is refused while it arrives.
    public static let largestAnswer = 64 << 10

    /// Details from the JSON a device's `/setup/eureka_info` answers, the way
    /// pychromecast's `get_device_info` reads it: `device_info`'s fields first,
    /// the top-level `name` and `ssdp_udn` where `device_info` lacks them.
    /// Fields of another type than expected are ignored; empty strings count as absent.
    ///
    /// - Throws: ``CastDeviceDetailsError/Code/malformedAnswer`` when `json`
    ///   is not a JSON object, or is larger than ``largestAnswer``.
    public init(eurekaInfo json: Data) throws(CastDeviceDetailsError) {
        guard json.count <= Self.largestAnswer else {
            throw CastDeviceDetailsError(.malformedAnswer, "the answer has \(json.count) bytes, more than allowed")
        }
        guard let answer = try? JSONDecoder().decode(EurekaInfo.self, from: json) else {
            throw CastDeviceDetailsError(.malformedAnswer, "the answer is not a JSON object")
        }
        let info = answer.deviceInfo
        self.init(
            name: info?.name ?? answer.name,
            manufacturer: info?.manufacturer,
            modelName: info?.modelName,
            udn: info?.udn ?? answer.udn,
            firmwareVersion: answer.firmwareVersion,
            hasDisplay: info?.hasDisplay
        )
    }
}

/// The part of `/setup/eureka_info` that ``CastDeviceDetails`` reads,
/// decoded leniently: a field of another type than expected is ignored, not an error.
private struct EurekaInfo: Decodable {
    struct DeviceInfo: Decodable {
        var name: String?
        var manufacturer: String?
        var modelName: String?
        var udn: String?
        var hasDisplay: Bool?

        private enum Keys: String, CodingKey {
            case name, manufacturer, capabilities
            case modelName = "model_name"
            case udn = "ssdp_udn"
        }

        private enum CapabilityKeys: String, CodingKey {
            case displaySupported = "display_supported"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            self.name = container.text(.name)
            self.manufacturer = container.text(.manufacturer)
            self.modelName = container.text(.modelName)
            self.udn = container.text(.udn)
            let capabilities = try? container.nestedContainer(keyedBy: CapabilityKeys.self, forKey: .capabilities)
            self.hasDisplay = (try? capabilities?.decodeIfPresent(Bool.self, forKey: .displaySupported)) ?? nil
        }
    }

    var name: String?
    var udn: String?
    var firmwareVersion: String?
    var deviceInfo: DeviceInfo?

    private enum Keys: String, CodingKey {
        case name
        case udn = "ssdp_udn"
        case firmwareVersion = "cast_build_revision"
        case deviceInfo = "device_info"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        self.name = container.text(.name)
        self.udn = container.text(.udn)
        self.firmwareVersion = container.text(.firmwareVersion)
        self.deviceInfo = (try? container.decodeIfPresent(DeviceInfo.self, forKey: .deviceInfo)) ?? nil
    }
}

extension KeyedDecodingContainer {
    /// The string at `key`; `nil` when absent, empty or not a string.
    fileprivate func text(_ key: Key) -> String? {
        guard let string = (try? self.decodeIfPresent(String.self, forKey: key)) ?? nil, !string.isEmpty else {
            return nil
        }
        return string
    }
}

/// Why a device's details could not be read.
public struct CastDeviceDetailsError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: Hashable, Sendable {
        /// The device has no address to ask, or is a speaker group (no setup server of its own).
        case noSetupServer
        /// Neither the HTTPS nor the HTTP setup server answered in time, or both refused.
        case unreachable
        /// The answer was not a JSON object, or too large.
        case malformedAnswer
    }

    /// What went wrong.
    public let code: Code
    /// A description for logs and people.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Errors are equal when their codes are: the message is for people.
    public static func == (lhs: CastDeviceDetailsError, rhs: CastDeviceDetailsError) -> Bool {
        lhs.code == rhs.code
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(self.code)
    }

    /// `device details (unreachable): …`.
    public var description: String {
        "device details (\(self.code)): \(self.message)"
    }
}
