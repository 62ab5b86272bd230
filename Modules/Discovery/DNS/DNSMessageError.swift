/// Why bytes did not decode as a DNS message, and where.
package struct DNSMessageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was wrong.
    package enum Code: Hashable, Sendable {
        /// The message ended inside a field.
        case truncated
        /// A compression pointer pointed at or past the end of the message.
        case pointerOutOfRange
        /// A compression pointer did not point before the name or the previous pointer's target, which is how loops start.
        case pointerLoop
        /// A label's length byte used the reserved `01`/`10` prefixes (RFC 6891 §5).
        case reservedLabelType
        /// A name exceeded 255 bytes once expanded.
        case nameTooLong
        /// A section count promised more entries than the remaining bytes can hold.
        case countTooLarge
        /// A record's data did not fill exactly its RDLENGTH, or was invalid for its type.
        case malformedRecordData
    }

    /// What was wrong.
    package let code: Code
    /// The byte offset where decoding stopped.
    package let offset: Int

    /// Creates an error.
    package init(_ code: Code, at offset: Int) {
        self.code = code
        self.offset = offset
    }

    package var description: String {
        "malformed DNS message: \(self.code) at byte \(self.offset)"
    }
}

/// Why a message could not be encoded.
package struct DNSEncodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The name or string that does not fit the wire format.
    package let reason: String

    package var description: String {
        "cannot encode DNS message: \(self.reason)"
    }
}
