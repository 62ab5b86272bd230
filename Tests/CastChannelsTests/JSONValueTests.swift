import CastChannels
import Testing

@Suite(.timeLimit(.minutes(3))) struct JSONValueTests {
    @Test func parsesEveryKindOfValueAndKeepsIntegersApartFromFractions() throws {
        let value = try JSONValue(
            parsing: #"{"a":1,"b":1.5,"c":"x","d":[true,null],"e":{"f":-2},"g":1e3}"#)
        #expect(value["a"] == .integer(1))
        #expect(value["b"] == .number(1.5))
        #expect(value["c"]?.stringValue == "x")
        #expect(value["d"] == [true, nil])
        #expect(value["e"]?["f"]?.intValue == -2)
        #expect(value["g"]?.doubleValue == 1000)
        #expect(value["missing"] == nil)
        #expect(value["c"]?.intValue == nil)
        #expect(value["b"]?.intValue == nil)
    }

    @Test func writesCompactJSONWithSortedKeys() throws {
        let value: JSONValue = ["type": "LAUNCH", "requestId": 3, "appId": "CC1AD845", "volume": ["level": 0.5]]
        #expect(
            try value.jsonText() == #"{"appId":"CC1AD845","requestId":3,"type":"LAUNCH","volume":{"level":0.5}}"#)
    }

    @Test(arguments: ["", "{", #"{"a":}"#, "not json", "[1 2]"])
    func textThatIsNotJSONIsATypedError(text: String) {
        let error = #expect(throws: CastChannelError.self) { try JSONValue(parsing: text) }
        #expect(error?.code == .unexpectedReply)
    }

    @Test func numbersJSONCannotHoldAreRefused() {
        let value: JSONValue = ["level": .number(.infinity)]
        #expect(throws: CastChannelError.self) { try value.jsonText() }
    }
}

@Suite(.timeLimit(.minutes(3))) struct JSONValueEqualityTests {
    @Test func numbersAreEqualByValueWhateverTheirSpelling() throws {
        #expect(JSONValue.integer(1) == .number(1.0))
        #expect(Set<JSONValue>([.integer(2), .number(2.0)]).count == 1)
        #expect(try JSONValue(parsing: #"{"level":1}"#) == ["level": 1.0])
        #expect(JSONValue.integer(1) != .number(1.5))
        #expect(JSONValue.integer(1) != .string("1"))
    }
}
