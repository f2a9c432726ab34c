import EventModel
import Testing

/// The cheap readings `EventList.parseBody` makes of an event's bytes (member names matched as
/// one integer, strings read in place or unescaped after a plain start, integers read as their
/// digits pass) give what the generic path (`JSONValue.parse`, then `ReceivedEvent(json:)`) gives.
@Suite struct EventBytesDecodingTests {
    /// Each event of a body `{"events":[...]}` read from the bytes, and as the generic path reads it.
    static func bothWays(_ events: [String]) throws -> (bytes: [ReceivedEvent], generic: [ReceivedEvent]) {
        let body = Array(#"{"events":[\#(events.joined(separator: ","))]}"#.utf8)
        let read = try EventList.parseBody(body[...], eventsMember: "events")
        let generic = try JSONValue.parse(body).objectValue?["events"]?.arrayValue ?? []
        return (read.events?.received ?? [], generic.map(ReceivedEvent.init(json:)))
    }

    static let valid = #""id":"v","ts":1700000000000,"type":"click","name":"n""#
    static let names = ["id", "ts", "type", "name", "page", "path", "viewId", "session", "user", "device", "duration", "props"]

    @Test func everyFieldIsMatchedByItsNameAndNoOtherName() throws {
        // A value no field takes: each field's refusal names it, so a name matched wrongly (or
        // not at all) gives another reason or none.
        var events = Self.names.map { #"{\#(Self.valid),"\#($0)":[]}"# }
        // As JSON spells them (an escaped NUL after a name: one byte more, 0).
        let nearMisses = Self.names.flatMap { name in
            [String(name.dropLast()), name + "s", name.uppercased(), String(name.dropFirst()), "x" + name, name + #"\u0000"#]
        }
        events += nearMisses.map { #"{\#(Self.valid),"\#($0)":[]}"# }
        let (bytes, generic) = try Self.bothWays(events)
        #expect(bytes.count == generic.count)
        for (b, g) in zip(bytes, generic) { #expect(b == g) }
        for (i, name) in Self.names.enumerated() {
            guard case .rejected(_, let reason) = bytes[i] else {
                Issue.record("\(name) as an array is refused")
                continue
            }
            #expect(reason.hasPrefix("\(name) "), "\(reason)")
        }
        for (i, name) in nearMisses.enumerated() {
            guard case .valid = bytes[Self.names.count + i] else {
                Issue.record("\(name) is no field: the event is valid")
                continue
            }
        }
    }

    @Test func aNameEndingTheBodyIsMatchedWithoutReadingPastIt() throws {
        // Fewer than eight bytes after the name: it is read byte by byte, and the error is the parser's.
        for name in Self.names {
            let body = Array(#"{"events":[{"\#(name)""#.utf8)
            #expect(throws: JSONParseError.self) { try EventList.parseBody(body[...], eventsMember: "events") }
            let error = #expect(throws: JSONParseError.self) { try EventList.parseBody(body[...], eventsMember: "events") }
            let generic = #expect(throws: JSONParseError.self) { try JSONValue.parse(body) }
            #expect(error == generic)
        }
    }

    @Test func anEscapeAnywhereAfterAPlainStartIsUnescapedWithThatStart() throws {
        for plain in ["", "a", "abcdefg", "abcdefgh", "abcdefghijklmnopq", "é", "aéb😀cdefghij"] {
            for (escape, text) in [(#"\n"#, "\n"), (#"\""#, "\""), (#"\u00e9"#, "é"), (#"\ud83d\ude00"#, "😀"), (#"\\"#, "\\")] {
                let name = plain + text + "z"
                let event = #"{"id":"v","ts":1,"type":"click","name":"\#(plain)\#(escape)z","\#(plain)\#(escape)":1}"#
                let (bytes, generic) = try Self.bothWays([event])
                #expect(bytes == generic)
                guard case .valid(let e, _) = bytes.first else {
                    Issue.record("\(event) is valid")
                    continue
                }
                #expect(e.name == name)
            }
        }
        // A control byte after a plain start is refused where it stands.
        let body = Array(#"{"events":[{"id":"abcdefghij\#u{1}"}]}"#.utf8)
        let error = #expect(throws: JSONParseError.self) { try EventList.parseBody(body[...], eventsMember: "events") }
        #expect(error?.description == "line 1, column 29: control character in a string (escape it)")
    }

    @Test func integersOfEveryLengthAreReadAsTheirDigitsSay() throws {
        var literals = ["0", "-0", "7", "-7", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809"]
        for digits in 17...20 {
            literals += [String(repeating: "9", count: digits), "-" + String(repeating: "9", count: digits), "1" + String(repeating: "0", count: digits - 1)]
        }
        for literal in literals {
            let value = try JSONValue.parse(literal)
            if let exact = Int64(literal) {
                #expect(value == .int(exact), "\(literal)")
            } else {
                #expect(value == .double(Double(literal)!), "\(literal)")
            }
        }
        let events = literals.map { #"{"id":"v","ts":\#($0),"type":"click","name":"n","props":{"n":\#($0)}}"# }
        let (bytes, generic) = try Self.bothWays(events)
        #expect(bytes.count == generic.count)
        for (b, g) in zip(bytes, generic) { #expect(b == g) }
        guard case .valid(let e, let props) = bytes[0], case .valid(_, let negativeZero) = bytes[1] else {
            Issue.record("ts 0 and -0 are valid")
            return
        }
        #expect(e.ts == 0 && props == #"{"n":0}"# && negativeZero == #"{"n":0}"#)
    }
}
