import EventModel
import Testing

/// The parser checks a string's UTF-8 without making a `String` (`JSONParser.isValidUTF8`, in
/// place or after unescaping): it must accept exactly what `String(validating:)` accepts, with
/// and without an escape in the string.
@Suite struct UTF8ValidationTests {
    @Test func stringsParseExactlyWhenTheirBytesAreValidUTF8() {
        var state: UInt64 = 25
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        // Lead and continuation bytes around every edge of the table, and plain ASCII.
        let edges: [UInt8] = [0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]
        var accepted = 0
        for _ in 0..<20_000 {
            let bytes = (0..<Int(next() % 6)).map { _ in next() % 4 == 0 ? UInt8(truncatingIfNeeded: next()) : edges[Int(next() % UInt64(edges.count))] }
                .map { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C ? UInt8(ascii: "a") : $0 }
            let expected = String(validating: bytes, as: UTF8.self)
            for (prefix, decodedPrefix) in [("", ""), (#"\n"#, "\n"), ("0123456789", "0123456789")] {
                let text = [0x22] + Array(prefix.utf8) + bytes + [0x22]
                let parsed = try? JSONValue.parse(text)
                #expect(parsed == expected.map { .string(decodedPrefix + $0) }, "\(bytes)")
            }
            if expected != nil { accepted += 1 }
        }
        #expect(accepted > 2_000 && accepted < 18_000, "both kinds were tried: \(accepted)")
    }
}
