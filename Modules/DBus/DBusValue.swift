import CDBus

/// A D-Bus value, as much of the type system as the screen-cast portal
/// uses: basic values, arrays, dictionaries (`a{sv}` and the like),
/// structures and file descriptors. Variants are read as what they hold.
package enum DBusValue: Sendable, Equatable {
    case string(String)
    case objectPath(String)
    case boolean(Bool)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    /// A file descriptor this process now owns (libdbus duplicated it).
    case fileDescriptor(Int32)
    case array([DBusValue])
    /// An array whose element type is given (its signature, e.g. `v` or
    /// `(ia{sv})`), as an array that may be empty must be written; reading
    /// gives `.array`.
    case typedArray(elementSignature: String, [DBusValue])
    /// A dictionary with string keys (`a{s…}`); other key types read as an array of structures.
    case dictionary([String: DBusValue])
    case structure([DBusValue])
    /// A value sent as a variant (`v`), as a property's value is; reading
    /// gives what a variant holds, never this case.
    indirect case variant(DBusValue)

    /// The string of `.string` or `.objectPath`.
    package var string: String? {
        switch self {
        case .string(let value), .objectPath(let value): value
        default: nil
        }
    }

    /// The value of any integer case that fits.
    package var integer: Int? {
        switch self {
        case .int32(let value): Int(value)
        case .uint32(let value): Int(value)
        case .int64(let value): Int(value)
        case .uint64(let value): Int(exactly: value)
        default: nil
        }
    }

    package var dictionary: [String: DBusValue]? {
        if case .dictionary(let value) = self { return value }
        return nil
    }

    package var elements: [DBusValue]? {
        switch self {
        case .array(let value), .structure(let value), .typedArray(_, let value): value
        default: nil
        }
    }

    // MARK: Type codes (`((int) 's')` macros Swift does not import)

    static let typeString = Int32(UInt8(ascii: "s"))
    static let typeObjectPath = Int32(UInt8(ascii: "o"))
    static let typeSignature = Int32(UInt8(ascii: "g"))
    static let typeBoolean = Int32(UInt8(ascii: "b"))
    static let typeByte = Int32(UInt8(ascii: "y"))
    static let typeInt16 = Int32(UInt8(ascii: "n"))
    static let typeUInt16 = Int32(UInt8(ascii: "q"))
    static let typeInt32 = Int32(UInt8(ascii: "i"))
    static let typeUInt32 = Int32(UInt8(ascii: "u"))
    static let typeInt64 = Int32(UInt8(ascii: "x"))
    static let typeUInt64 = Int32(UInt8(ascii: "t"))
    static let typeDouble = Int32(UInt8(ascii: "d"))
    static let typeFileDescriptor = Int32(UInt8(ascii: "h"))
    static let typeArray = Int32(UInt8(ascii: "a"))
    static let typeVariant = Int32(UInt8(ascii: "v"))
    static let typeStruct = Int32(UInt8(ascii: "r"))
    static let typeDictEntry = Int32(UInt8(ascii: "e"))
    static let typeInvalid = Int32(0)

    // MARK: Reading

    /// The message whose wire bytes are `bytes`, validated by libdbus (the
    /// fuzz targets' way in); `nil` for bytes that are not one. Unref it.
    package static func message(demarshalling bytes: [UInt8]) -> OpaquePointer? {
        guard !bytes.isEmpty else { return nil }
        var error = DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        return bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                dbus_message_demarshal($0.baseAddress, Int32(buffer.count), &error)
            }
        }
    }

    /// Every argument of `message`, in order.
    package static func arguments(of message: OpaquePointer) -> [DBusValue] {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(message, &iterator) != 0 else { return [] }
        var values: [DBusValue] = []
        repeat {
            if let value = Self.read(&iterator) { values.append(value) }
        } while dbus_message_iter_next(&iterator) != 0
        return values
    }

    /// The value at `iterator`; `nil` for types the portal never sends.
    /// libdbus has validated the message (depth ≤ 32, well-formed strings).
    private static func read(_ iterator: inout DBusMessageIter) -> DBusValue? {
        let type = dbus_message_iter_get_arg_type(&iterator)
        switch type {
        case Self.typeString, Self.typeObjectPath, Self.typeSignature:
            var pointer: UnsafePointer<CChar>?
            dbus_message_iter_get_basic(&iterator, &pointer)
            let text = pointer.map { String(cString: $0) } ?? ""
            return type == Self.typeObjectPath ? .objectPath(text) : .string(text)
        case Self.typeBoolean: return .boolean(Self.basic(&iterator, dbus_bool_t(0)) != 0)
        case Self.typeByte: return .uint32(UInt32(Self.basic(&iterator, UInt8(0))))
        case Self.typeInt16: return .int32(Int32(Self.basic(&iterator, Int16(0))))
        case Self.typeUInt16: return .uint32(UInt32(Self.basic(&iterator, UInt16(0))))
        case Self.typeInt32: return .int32(Self.basic(&iterator, Int32(0)))
        case Self.typeUInt32: return .uint32(Self.basic(&iterator, UInt32(0)))
        case Self.typeInt64: return .int64(Self.basic(&iterator, Int64(0)))
        case Self.typeUInt64: return .uint64(Self.basic(&iterator, UInt64(0)))
        case Self.typeDouble: return .double(Self.basic(&iterator, Double(0)))
        case Self.typeFileDescriptor:
            let value = Self.basic(&iterator, Int32(-1))
            return value >= 0 ? .fileDescriptor(value) : nil
        case Self.typeVariant:
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            return Self.read(&inner)
        case Self.typeStruct, Self.typeDictEntry:
            return .structure(Self.readElements(&iterator))
        case Self.typeArray:
            let elements = Self.readElements(&iterator)
            guard dbus_message_iter_get_element_type(&iterator) == Self.typeDictEntry else { return .array(elements) }
            var dictionary: [String: DBusValue] = [:]
            for case .structure(let entry) in elements {
                guard entry.count == 2, let key = entry[0].string else { return .array(elements) }
                dictionary[key] = entry[1]
            }
            return .dictionary(dictionary)
        default:
            return nil
        }
    }

    /// The basic value at `iterator`, read into a `T` that starts as `initial`.
    private static func basic<T: BitwiseCopyable>(_ iterator: inout DBusMessageIter, _ initial: T) -> T {
        var value = initial
        dbus_message_iter_get_basic(&iterator, &value)
        return value
    }

    private static func readElements(_ iterator: inout DBusMessageIter) -> [DBusValue] {
        var inner = DBusMessageIter()
        dbus_message_iter_recurse(&iterator, &inner)
        var elements: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&inner) != Self.typeInvalid {
            if let value = Self.read(&inner) { elements.append(value) }
            dbus_message_iter_next(&inner)
        }
        return elements
    }

    // MARK: Writing

    /// Appends `value` to `message`; `false` when libdbus ran out of memory
    /// or the value is of a kind the writer does not send.
    package static func append(_ value: DBusValue, to message: OpaquePointer) -> Bool {
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(message, &iterator)
        return Self.write(value, into: &iterator)
    }

    /// The type signature of a value the writer sends; `nil` for others.
    /// An empty array is an array of strings.
    private var signature: String? {
        switch self {
        case .string: "s"
        case .objectPath: "o"
        case .boolean: "b"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .double: "d"
        case .dictionary: "a{sv}"
        case .variant: "v"
        case .array(let elements): elements.first.map { $0.signature.map { "a" + $0 } } ?? "as"
        case .typedArray(let element, _): "a" + element
        case .structure(let fields): Self.signature(ofStructure: fields)
        default: nil
        }
    }

    /// `(…)` with each field's signature; `nil` when a field has none or there is none.
    private static func signature(ofStructure fields: [DBusValue]) -> String? {
        guard !fields.isEmpty else { return nil }
        var text = "("
        for field in fields {
            guard let signature = field.signature else { return nil }
            text += signature
        }
        return text + ")"
    }

    /// Writes what the portal's methods take and what an MPRIS player, a
    /// tray item and its menu answer: strings, object paths, booleans,
    /// integers, doubles, arrays of one type, `a{sv}` dictionaries,
    /// structures and variants.
    private static func write(_ value: DBusValue, into iterator: inout DBusMessageIter) -> Bool {
        switch value {
        case .string(let text), .objectPath(let text):
            let type = if case .objectPath = value { Self.typeObjectPath } else { Self.typeString }
            return text.withCString { pointer in
                var pointer: UnsafePointer<CChar>? = pointer
                return dbus_message_iter_append_basic(&iterator, type, &pointer) != 0
            }
        case .boolean(let flag):
            var raw: dbus_bool_t = flag ? 1 : 0
            return dbus_message_iter_append_basic(&iterator, Self.typeBoolean, &raw) != 0
        case .uint32(var raw):
            return dbus_message_iter_append_basic(&iterator, Self.typeUInt32, &raw) != 0
        case .int32(var raw):
            return dbus_message_iter_append_basic(&iterator, Self.typeInt32, &raw) != 0
        case .int64(var raw):
            return dbus_message_iter_append_basic(&iterator, Self.typeInt64, &raw) != 0
        case .double(var raw):
            return dbus_message_iter_append_basic(&iterator, Self.typeDouble, &raw) != 0
        case .variant(let inner):
            guard let signature = inner.signature else { return false }
            return Self.container(Self.typeVariant, signature, &iterator) { Self.write(inner, into: &$0) }
        case .array(let elements):
            guard let signature = value.signature, elements.allSatisfy({ "a" + ($0.signature ?? "") == signature })
            else { return false }
            return Self.container(Self.typeArray, String(signature.dropFirst()), &iterator) { array in
                elements.allSatisfy { Self.write($0, into: &array) }
            }
        case .typedArray(let element, let elements):
            guard elements.allSatisfy({ $0.signature == element }) else { return false }
            return Self.container(Self.typeArray, element, &iterator) { array in
                elements.allSatisfy { Self.write($0, into: &array) }
            }
        case .structure(let fields):
            guard value.signature != nil else { return false }
            return Self.container(Self.typeStruct, nil, &iterator) { structure in
                fields.allSatisfy { Self.write($0, into: &structure) }
            }
        case .dictionary(let entries):
            return Self.container(Self.typeArray, "{sv}", &iterator) { array in
                entries.sorted { $0.key < $1.key }.allSatisfy { key, entry in
                    Self.container(Self.typeDictEntry, nil, &array) { pair in
                        guard Self.write(.string(key), into: &pair), let signature = entry.signature else {
                            return false
                        }
                        return Self.container(Self.typeVariant, signature, &pair) { Self.write(entry, into: &$0) }
                    }
                }
            }
        default:
            return false
        }
    }

    private static func container(
        _ type: Int32, _ signature: String?, _ iterator: inout DBusMessageIter,
        _ body: (inout DBusMessageIter) -> Bool
    ) -> Bool {
        var inner = DBusMessageIter()
        let opened: Bool =
            if let signature {
                signature.withCString { dbus_message_iter_open_container(&iterator, type, $0, &inner) != 0 }
            } else {
                dbus_message_iter_open_container(&iterator, type, nil, &inner) != 0
            }
        guard opened else { return false }
        guard body(&inner) else {
            dbus_message_iter_abandon_container(&iterator, &inner)
            return false
        }
        return dbus_message_iter_close_container(&iterator, &inner) != 0
    }
}
