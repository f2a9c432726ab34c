import Foundation
@testable import SQLiteStore
import Testing

/// The rollup workers make each distinct text of a chunk once (RollupTexts.swift): every text
/// must be exactly what `String(decoding:as:)` makes of its bytes, equal bytes give one shared
/// string, different bytes (same length, same first word, empty, invalid UTF-8) never mix, and
/// NULL stays nil, past the table's growth.
@Suite struct RollupTextsTests {
    func text(_ texts: inout RollupTexts, _ bytes: [UInt8]?) -> String? {
        guard let bytes else { return texts.text(nil) }
        // A copy with an address of its own each time: texts are found by content, never by pointer.
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        defer { copy.deallocate() }
        copy.copyBytes(from: bytes)
        return texts.text(UnsafeRawBufferPointer(rebasing: copy[0..<bytes.count]))
    }

    @Test func eachTextIsItsBytesAndEqualTextsShareOneString() {
        var texts = RollupTexts()
        let samples: [[UInt8]] = [
            [], Array("a".utf8), Array("b".utf8), Array("page_enter".utf8), Array("page_leave".utf8),
            Array("0123456789abcdef-session-0001".utf8), Array("0123456789abcdef-session-0002".utf8),
            Array("0123456789abcdef".utf8), Array("0123456789abcdeg".utf8), Array("héllo wörld, ünïcode".utf8),
            [0x66, 0xFF, 0x6F], [0x66, 0xFE, 0x6F], [0x00], [0x00, 0x00],
        ]
        // Many more distinct texts than the first table holds, then every sample again.
        var expected: [[UInt8]: String] = [:]
        for round in 0..<3 {
            for s in samples {
                let t = text(&texts, s)
                #expect(t == String(decoding: s, as: UTF8.self), "\(s)")
                if round == 0, expected[s] == nil { expected[s] = t }
            }
            for i in 0..<5_000 {
                let s = Array("id-\(i)".utf8)
                #expect(text(&texts, s) == "id-\(i)")
            }
        }
        for s in samples where String(decoding: s, as: UTF8.self).utf8.elementsEqual(s) {
            // Valid UTF-8: the same storage as the first time it was made.
            let again = text(&texts, s)!
            let first = expected[s]!
            let sameStorage = again.utf8.withContiguousStorageIfAvailable { a in
                first.utf8.withContiguousStorageIfAvailable { b in a.baseAddress == b.baseAddress }
            }
            if s.count > 15 { #expect(sameStorage == true, "\(first)") }  // smaller ones are stored inline
        }
        #expect(text(&texts, nil) == nil)
        #expect(text(&texts, []) == "")
    }
}
