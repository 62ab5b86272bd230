/// swift-testing's `#require` and `#expect` take only copyable values; these
/// do the same for the noncopyable buffers and frames.
struct MissingValue: Error, CustomStringConvertible {
    let description: String
}

/// The value, or a thrown ``MissingValue`` naming `what`.
func unwrap<Value: ~Copyable>(_ value: consuming Value?, _ what: String = "value") throws -> Value {
    switch consume value {
    case .some(let unwrapped): return unwrapped
    case .none: throw MissingValue(description: "\(what) was nil")
    }
}

/// Whether an optional noncopyable value is nil (consumes it).
func isNil<Value: ~Copyable>(_ value: consuming Value?) -> Bool {
    switch consume value {
    case .some: false
    case .none: true
    }
}
