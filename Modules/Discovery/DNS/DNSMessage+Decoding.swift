extension DNSMessage {
    /// Decodes a message from the bytes of one UDP datagram.
    ///
    /// Every count, length and pointer is checked against the bytes present:
    /// a pointer must point strictly backwards (so chains end), a name may
    /// not expand past 255 bytes, and a section count must fit the bytes
    /// left. Bytes after the last section are ignored.
    package init(decoding bytes: [UInt8]) throws(DNSMessageError) {
        var reader = DNSReader(bytes: bytes)
        self.id = try reader.readUInt16()
        self.flags = try reader.readUInt16()
        let questionCount = Int(try reader.readUInt16())
        let answerCount = Int(try reader.readUInt16())
        let authorityCount = Int(try reader.readUInt16())
        let additionalCount = Int(try reader.readUInt16())
        // The smallest question is 5 bytes (root name, type, class); the smallest record 11.
        let smallest = questionCount * 5 + (answerCount + authorityCount + additionalCount) * 11
        guard smallest <= reader.remaining else {
            throw DNSMessageError(.countTooLarge, at: reader.offset)
        }
        self.questions = try (0..<questionCount).map { _ throws(DNSMessageError) in try reader.readQuestion() }
        self.answers = try reader.readRecords(count: answerCount)
        self.authorities = try reader.readRecords(count: authorityCount)
        self.additionals = try reader.readRecords(count: additionalCount)
    }
}

/// Reads DNS fields from a message's bytes, checking every bound.
struct DNSReader {
    private let bytes: [UInt8]
    private(set) var offset = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    var remaining: Int { self.bytes.count - self.offset }

    mutating func readUInt8() throws(DNSMessageError) -> UInt8 {
        guard self.remaining >= 1 else { throw DNSMessageError(.truncated, at: self.offset) }
        defer { self.offset += 1 }
        return self.bytes[self.offset]
    }

    mutating func readUInt16() throws(DNSMessageError) -> UInt16 {
        guard self.remaining >= 2 else { throw DNSMessageError(.truncated, at: self.offset) }
        defer { self.offset += 2 }
        return UInt16(self.bytes[self.offset]) << 8 | UInt16(self.bytes[self.offset + 1])
    }

    mutating func readUInt32() throws(DNSMessageError) -> UInt32 {
        UInt32(try self.readUInt16()) << 16 | UInt32(try self.readUInt16())
    }

    mutating func readBytes(_ count: Int) throws(DNSMessageError) -> ArraySlice<UInt8> {
        guard count >= 0, self.remaining >= count else { throw DNSMessageError(.truncated, at: self.offset) }
        defer { self.offset += count }
        return self.bytes[self.offset..<self.offset + count]
    }

    /// Reads a possibly compressed name (RFC 1035 §4.1.4).
    ///
    /// A pointer must land before where the name, or the previous pointer's
    /// target, began; anything else is a loop or a forward reference.
    ///
    /// ```
    /// 00xxxxxx  label of length x follows (0 ends the name)
    /// 11xxxxxx xxxxxxxx  pointer: the name continues at the 14-bit offset
    /// 01/10     reserved
    /// ```
    mutating func readName() throws(DNSMessageError) -> DNSName {
        var labels: [String] = []
        var wireLength = 1
        var position = self.offset
        // Where reading resumes once the name is done: after the first pointer, if any.
        var resumeOffset: Int?
        // Each pointer must land before the previous landing point (the name's start, at first):
        // strictly falling targets cannot loop.
        var pointerLimit = self.offset
        while true {
            guard position < self.bytes.count else { throw DNSMessageError(.truncated, at: position) }
            let length = self.bytes[position]
            switch length & 0xC0 {
            case 0x00 where length == 0:
                self.offset = resumeOffset ?? position + 1
                return DNSName(labels: labels)
            case 0x00:
                let start = position + 1
                let end = start + Int(length)
                guard end <= self.bytes.count else { throw DNSMessageError(.truncated, at: position) }
                wireLength += 1 + Int(length)
                guard wireLength <= DNSName.maximumWireLength else {
                    throw DNSMessageError(.nameTooLong, at: position)
                }
                labels.append(String(decoding: self.bytes[start..<end], as: UTF8.self))
                position = end
            case 0xC0:
                guard position + 1 < self.bytes.count else { throw DNSMessageError(.truncated, at: position) }
                let target = Int(length & 0x3F) << 8 | Int(self.bytes[position + 1])
                guard target < self.bytes.count else { throw DNSMessageError(.pointerOutOfRange, at: position) }
                guard target < pointerLimit else { throw DNSMessageError(.pointerLoop, at: position) }
                if resumeOffset == nil { resumeOffset = position + 2 }
                pointerLimit = target
                position = target
            default:
                throw DNSMessageError(.reservedLabelType, at: position)
            }
        }
    }

    mutating func readQuestion() throws(DNSMessageError) -> DNSQuestion {
        let name = try self.readName()
        let type = DNSRecordType(rawValue: try self.readUInt16())
        let classField = try self.readUInt16()
        return DNSQuestion(name: name, type: type, prefersUnicastResponse: classField & 0x8000 != 0)
    }

    mutating func readRecords(count: Int) throws(DNSMessageError) -> [DNSResourceRecord] {
        var records: [DNSResourceRecord] = []
        records.reserveCapacity(count)
        for _ in 0..<count {
            records.append(try self.readRecord())
        }
        return records
    }

    mutating func readRecord() throws(DNSMessageError) -> DNSResourceRecord {
        let name = try self.readName()
        let type = DNSRecordType(rawValue: try self.readUInt16())
        let classField = try self.readUInt16()
        let ttl = try self.readUInt32()
        let length = Int(try self.readUInt16())
        guard self.remaining >= length else { throw DNSMessageError(.truncated, at: self.offset) }
        let start = self.offset
        let end = start + length
        let data = try self.readRecordData(type: type, length: length, end: end)
        guard self.offset == end else { throw DNSMessageError(.malformedRecordData, at: start) }
        return DNSResourceRecord(name: name, ttl: ttl, isCacheFlush: classField & 0x8000 != 0, data: data)
    }

    private mutating func readRecordData(type: DNSRecordType, length: Int, end: Int) throws(DNSMessageError)
        -> DNSRecordData
    {
        let start = self.offset
        switch type {
        case .a:
            guard length == 4, let address = IPAddress.V4(bytes: try self.readBytes(4)) else {
                throw DNSMessageError(.malformedRecordData, at: start)
            }
            return .a(address)
        case .aaaa:
            guard length == 16, let address = IPAddress.V6(bytes: try self.readBytes(16)) else {
                throw DNSMessageError(.malformedRecordData, at: start)
            }
            return .aaaa(address)
        case .ptr:
            return .ptr(try self.readName())
        case .srv:
            let priority = try self.readUInt16()
            let weight = try self.readUInt16()
            let port = try self.readUInt16()
            return .srv(priority: priority, weight: weight, port: port, target: try self.readName())
        case .txt:
            var strings: [[UInt8]] = []
            while self.offset < end {
                let count = Int(try self.readUInt8())
                guard self.offset + count <= end else { throw DNSMessageError(.malformedRecordData, at: self.offset) }
                strings.append(Array(try self.readBytes(count)))
            }
            // RDLENGTH 0 is seen in the wild; it means what the proper form, one empty string, means.
            return .txt(strings.isEmpty ? [[]] : strings)
        case .nsec:
            let next = try self.readName()
            var types: Set<DNSRecordType> = []
            // Type bitmaps: window number, bitmap length (1...32), bitmap (RFC 4034 §4.1.2).
            while self.offset < end {
                let window = UInt16(try self.readUInt8())
                let bitmapLength = Int(try self.readUInt8())
                guard (1...32).contains(bitmapLength), self.offset + bitmapLength <= end else {
                    throw DNSMessageError(.malformedRecordData, at: self.offset)
                }
                for (index, byte) in try self.readBytes(bitmapLength).enumerated() {
                    for bit in 0..<8 where byte & (0x80 >> bit) != 0 {
                        types.insert(DNSRecordType(rawValue: window << 8 | UInt16(index * 8 + bit)))
                    }
                }
            }
            return .nsec(next: next, types: types)
        default:
            return .other(type: type, bytes: Array(try self.readBytes(length)))
        }
    }
}
