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
