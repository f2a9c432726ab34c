import EventModel
import Testing

@Suite struct LogTextTests {
    @Test func controlAndBidiCharactersAreEscapedAndPrintableTextIsKept() {
        #expect(LogText.escaped("shop 1.2 café 店") == "shop 1.2 café 店")
        #expect(LogText.escaped("a\nb\rc\td") == #"a\nb\rc\td"#)
        #expect(LogText.escaped("\u{1B}[31mred\u{7F}\u{85}\u{0}") == #"\u{1B}[31mred\u{7F}\u{85}\u{0}"#)
        #expect(LogText.escaped("x\u{202E}y\u{2066}z\u{2028}") == #"x\u{202E}y\u{2066}z\u{2028}"#)
        // A backslash is doubled, so "\n" typed by the client is not mistaken for a line feed it sent.
        #expect(LogText.escaped(#"a\nb"#) == #"a\\nb"#)
    }
}
