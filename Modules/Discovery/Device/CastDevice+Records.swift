extension CastDevice {
    /// A device from its DNS-SD records: the instance name, the SRV port and
    /// target, the TXT strings, and the target's addresses.
    ///
    /// `nil` when the TXT record has no `id`: a receiver without one cannot be
    /// told apart from others, and the SDKs skip it too.
    init?(instanceName: String, hostName: String, port: Int, txtStrings: [[UInt8]], addresses: [IPAddress]) {
        let txt = Self.attributes(fromTXT: txtStrings)
        guard let id = txt["id"], !id.isEmpty else { return nil }
        let runningAppStatus = txt["rs"].flatMap { $0.isEmpty ? nil : $0 }
        self.init(
            id: id,
            friendlyName: txt["fn"] ?? instanceName,
            modelName: txt["md"] ?? "",
            iconPath: txt["ic"].flatMap { $0.isEmpty ? nil : $0 },
            capabilities: CastDeviceCapabilities(rawValue: txt["ca"].flatMap { UInt64($0) } ?? 0),
            status: Status(txtValue: txt["st"]),
            protocolVersion: txt["ve"].flatMap { Int($0) },
            runningAppStatus: runningAppStatus,
            addresses: addresses,
            port: port,
            instanceName: instanceName,
            hostName: hostName,
            txtRecord: txt,
            source: .multicastDNS
        )
    }

    /// DNS-SD attributes from TXT strings (RFC 6763 §6.3–6.5): `key=value`,
    /// keys compared without case and kept in lower case, the first of a
    /// repeated key wins, a string without `=` is a key with an empty value,
    /// and a string that starts with `=` is ignored. Values are UTF-8; bytes
    /// that are not become U+FFFD.
    static func attributes(fromTXT strings: [[UInt8]]) -> [String: String] {
        var attributes: [String: String] = [:]
        for string in strings where !string.isEmpty {
            let separator = string.firstIndex(of: UInt8(ascii: "=")) ?? string.endIndex
            guard separator != string.startIndex else { continue }
            let key = String(decoding: string[..<separator], as: UTF8.self).lowercased()
            let value = separator < string.endIndex ? String(decoding: string[(separator + 1)...], as: UTF8.self) : ""
            if attributes[key] == nil { attributes[key] = value }
        }
        return attributes
    }
}
