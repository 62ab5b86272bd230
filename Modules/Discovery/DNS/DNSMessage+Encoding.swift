extension DNSMessage {
    /// The message's wire bytes, names compressed against earlier names.
    ///
    /// Throws when a label exceeds 63 bytes, a name 255, or a TXT string 255.
    package func encoded() throws(DNSEncodingError) -> [UInt8] {
        var writer = DNSWriter()
        writer.writeUInt16(self.id)
        writer.writeUInt16(self.flags)
        for count in [self.questions.count, self.answers.count, self.authorities.count, self.additionals.count] {
            guard count <= Int(UInt16.max) else { throw DNSEncodingError(reason: "\(count) entries in one section") }
            writer.writeUInt16(UInt16(count))
        }
        for question in self.questions {
            try writer.writeName(question.name)
            writer.writeUInt16(question.type.rawValue)
            writer.writeUInt16(DNSWriter.classIN | (question.prefersUnicastResponse ? 0x8000 : 0))
        }
        for record in self.answers + self.authorities + self.additionals {
            try writer.writeRecord(record)
        }
        return writer.bytes
    }
}

/// Writes DNS fields, remembering where each name suffix went so later
/// names can point at it.
struct DNSWriter {
    static let classIN: UInt16 = 1

    private(set) var bytes: [UInt8] = []
    /// Offsets of name suffixes already written, by their canonical labels.
    private var suffixOffsets: [[String]: Int] = [:]

    mutating func writeUInt16(_ value: UInt16) {
        self.bytes.append(UInt8(value >> 8))
        self.bytes.append(UInt8(value & 0xFF))
    }

    mutating func writeUInt32(_ value: UInt32) {
        self.writeUInt16(UInt16(value >> 16))
        self.writeUInt16(UInt16(value & 0xFFFF))
    }

    mutating func writeName(_ name: DNSName, compressing: Bool = true) throws(DNSEncodingError) {
        guard name.wireLength <= DNSName.maximumWireLength else {
            throw DNSEncodingError(reason: "name \(name) is longer than 255 bytes")
        }
        let canonical = name.canonicalLabels
        for index in name.labels.indices {
            let suffix = Array(canonical[index...])
            if compressing, let target = self.suffixOffsets[suffix] {
                self.writeUInt16(0xC000 | UInt16(target))
                return
            }
            let label = Array(name.labels[index].utf8)
            guard !label.isEmpty, label.count <= DNSName.maximumLabelLength else {
                throw DNSEncodingError(reason: "label '\(name.labels[index])' must be 1 to 63 bytes")
            }
            // Pointers have 14 bits of offset.
            if self.bytes.count < 0x4000 { self.suffixOffsets[suffix] = self.bytes.count }
            self.bytes.append(UInt8(label.count))
            self.bytes.append(contentsOf: label)
        }
        self.bytes.append(0)
    }

    mutating func writeRecord(_ record: DNSResourceRecord) throws(DNSEncodingError) {
        try self.writeName(record.name)
        self.writeUInt16(record.type.rawValue)
        self.writeUInt16(Self.classIN | (record.isCacheFlush ? 0x8000 : 0))
        self.writeUInt32(record.ttl)
        let lengthOffset = self.bytes.count
        self.writeUInt16(0)
        try self.writeRecordData(record.data)
        let length = self.bytes.count - lengthOffset - 2
        guard length <= Int(UInt16.max) else { throw DNSEncodingError(reason: "record data of \(length) bytes") }
        self.bytes[lengthOffset] = UInt8(length >> 8)
        self.bytes[lengthOffset + 1] = UInt8(length & 0xFF)
    }

    private mutating func writeRecordData(_ data: DNSRecordData) throws(DNSEncodingError) {
        switch data {
        case .a(let address):
            self.bytes.append(contentsOf: address.bytes)
        case .aaaa(let address):
            self.bytes.append(contentsOf: address.bytes)
        case .ptr(let name):
            try self.writeName(name)
        case .srv(let priority, let weight, let port, let target):
            self.writeUInt16(priority)
            self.writeUInt16(weight)
            self.writeUInt16(port)
            // RFC 2782 forbids compressing the target; mDNS allows it (RFC 6762 §18.14) but
            // unicast DNS-SD clients may not, so it is written in full.
            try self.writeName(target, compressing: false)
        case .txt(let strings):
            // An empty TXT record is one empty string (RFC 6763 §6.1).
            for string in strings.isEmpty ? [[]] : strings {
                guard string.count <= 255 else { throw DNSEncodingError(reason: "TXT string of \(string.count) bytes") }
                self.bytes.append(UInt8(string.count))
                self.bytes.append(contentsOf: string)
            }
        case .nsec(let next, let types):
            // mDNS NSEC names are never compressed (RFC 6762 §18.14 leaves it optional; RFC 4034 forbids it).
            try self.writeName(next, compressing: false)
            let byWindow = Dictionary(grouping: types.map(\.rawValue)) { UInt8($0 >> 8) }
            for (window, windowTypes) in byWindow.sorted(by: { $0.key < $1.key }) {
                let low = windowTypes.map { Int($0 & 0xFF) }
                var bitmap = [UInt8](repeating: 0, count: (low.max() ?? 0) / 8 + 1)
                for type in low { bitmap[type / 8] |= 0x80 >> UInt8(type % 8) }
                self.bytes.append(window)
                self.bytes.append(UInt8(bitmap.count))
                self.bytes.append(contentsOf: bitmap)
            }
        case .other(_, let bytes):
            self.bytes.append(contentsOf: bytes)
        }
    }
}
