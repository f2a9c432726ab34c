import EventModel
import Testing

@Suite struct JSONValueTests {
    @Test func roundTripKeepsOrderAndExactIntegers() throws {
        let text = #"{"z":1,"a":[true,false,null],"ts":1732233600123,"f":1.5,"s":"a\"b\\c\n\u00e9"}"#
        let v = try JSONValue.parse(text)
        #expect(v["ts"] == .int(1_732_233_600_123))
        #expect(v.objectValue?.keys == ["z", "a", "ts", "f", "s"])
        #expect(v["s"] == .string("a\"b\\c\né"))
        #expect(v.jsonText == #"{"z":1,"a":[true,false,null],"ts":1732233600123,"f":1.5,"s":"a\"b\\c\né"}"#)
        #expect(!v.jsonText.contains("\n"))
    }

    @Test(arguments: [
        ("{", 1, 2), ("[1,]", 1, 4), ("{\"a\" 1}", 1, 6), ("01", 1, 1), ("\"abc", 1, 1), ("[1]\n x", 2, 2), ("\"\\x\"", 1, 2),
    ])
    func errorsPointAtTheBadCharacter(text: String, line: Int, column: Int) {
        #expect(throws: JSONParseError.self) { try JSONValue.parse(text) }
        do {
            _ = try JSONValue.parse(text)
        } catch {
            #expect(error.line == line)
            #expect(error.column == column)
        }
    }

    @Test func surrogatePairsDecode() throws {
        #expect(try JSONValue.parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(throws: JSONParseError.self) { try JSONValue.parse(#""\ud83d""#) }
    }

    @Test func deepNestingIsRefusedNotACrash() {
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(deep) }
    }
}

@Suite struct JSONObjectParsingTests {
    @Test func repeatedKeysKeepTheirFirstPlaceAndTheLastValue() throws {
        let v = try JSONValue.parse(#"{"a":1,"b":2,"a":3}"#)
        #expect(v.objectValue?.keys == ["a", "b"])
        #expect(v["a"] == .int(3))
    }

    /// Past the small-object threshold the parser indexes keys; repeats must still resolve the same way.
    @Test func manyKeysWithRepeatsParseLikeFewKeys() throws {
        var text = "{"
        for i in 0..<5_000 { text += "\"k\(i)\":\(i)," }
        text += "\"k7\":\"again\",\"k4999\":null}"
        let o = try #require(try JSONValue.parse(text).objectValue)
        #expect(o.count == 5_000)
        #expect(o["k7"] == .string("again"))
        #expect(o["k4999"] == .null)
        #expect(o.keys.first == "k0")
    }

    @Test(arguments: [
        ("9223372036854775807", JSONValue.int(.max)), ("-9223372036854775808", JSONValue.int(.min)),
        ("9223372036854775808", JSONValue.double(9_223_372_036_854_775_808)), ("-0", JSONValue.int(0)), ("12", JSONValue.int(12)),
    ])
    func integersAreExactAndOverflowBecomesDouble(text: String, expected: JSONValue) throws {
        #expect(try JSONValue.parse(text) == expected)
    }

    @Test func nonASCIIStringsAreValidated() throws {
        #expect(try JSONValue.parse(Array("\"héllo\"".utf8)) == .string("héllo"))
        #expect(throws: JSONParseError.self) { try JSONValue.parse([0x22, 0xC3, 0x28, 0x22]) }
    }
}

@Suite struct JSONWriterTests {
    @Test(arguments: [Int64.min, -1, 0, 7, 10, 1_763_769_600_000, Int64.max])
    func integersWriteAsTheirDecimalDigits(i: Int64) {
        #expect(JSONValue.int(i).jsonText == String(i))
    }

    @Test func stringsEscapeOnlyWhatJSONRequires() throws {
        let s = "plain \"quoted\" back\\slash\nnew\tline\u{01}é😀 end"
        let text = JSONValue.string(s).jsonText
        #expect(text == #""plain \"quoted\" back\\slash\nnew\tline\u0001é😀 end""#)
        #expect(try JSONValue.parse(text) == .string(s))
    }
}
