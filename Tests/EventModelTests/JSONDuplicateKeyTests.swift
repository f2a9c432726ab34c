import EventModel
import Testing

@Suite struct JSONDuplicateKeyTests {
    @Test func theParserReportsEveryRepeatedKeyWithItsPathAndBothPlacesAndKeepsTheLast() throws {
        let text = #"{"a": 1, "list": [{"x": 1}, {"x": 2, "x": 3}], "a": 4}"#
        var seen: [JSONDuplicateKey] = []
        let value = try JSONValue.parse(Array(text.utf8)) { seen.append($0) }
        #expect(value == (try JSONValue.parse(text)))
        #expect(value["a"] == .int(4))
        #expect(seen.count == 2)
        let inner = try #require(seen.first)
        #expect(inner.path == [.key("list"), .index(1)])
        #expect(inner.key == "x")
        let bytes = Array(text.utf8)
        #expect(String(decoding: bytes[inner.firstOffset..<(inner.firstOffset + 3)], as: UTF8.self) == #""x""#)
        #expect(inner.offset > inner.firstOffset)
        let outer = seen[1]
        #expect(outer.path.isEmpty)
        #expect(outer.key == "a")
        #expect(outer.firstOffset == 1)
    }

    @Test func withoutAHandlerRepeatsAreResolvedSilently() throws {
        #expect(try JSONValue.parse(#"{"k": 1, "k": 2}"#)["k"] == .int(2))
    }
}
