import CastChannels
import Foundation

extension JSONValue {
    /// `value` as JSON, through its `Encodable` conformance (the models' wire shapes).
    init(encoding value: some Encodable) throws(CastMediaError) {
        do {
            let data = try JSONEncoder().encode(value)
            self = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw CastMediaError(.requestFailed, "the request cannot be written as JSON", cause: error)
        }
    }

    /// This value decoded as `type`, through its `Decodable` conformance.
    func decoded<Value: Decodable>(as type: Value.Type) -> Value? {
        guard let text = try? self.jsonText() else { return nil }
        return try? JSONDecoder().decode(type, from: Data(text.utf8))
    }
}
