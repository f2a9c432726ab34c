import Foundation
@testable import SQLiteStore
import Testing

/// The rollup workers make each distinct text of a chunk once and number it (RollupTexts.swift):
/// every text must be exactly what `String(decoding:as:)` makes of its bytes, equal texts give
/// one shared string and one number, different texts (same length, same first word, empty)
/// never share a number, bytes that are not UTF-8 take their repaired text's number, and NULL
/// stays nil, past the table's growth.
@Suite struct RollupTextsTests {
    func text(_ texts: inout RollupTexts, _ bytes: [UInt8]?) -> RollupText? {
        guard let bytes else { return texts.text(nil) }
        // A copy with an address of its own each time: texts are found by content, never by pointer.
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        defer { copy.deallocate() }
        copy.copyBytes(from: bytes)
        return texts.text(UnsafeRawBufferPointer(rebasing: copy[0..<bytes.count]))
    }

    @Test func eachTextIsItsBytesAndEqualTextsShareOneStringAndNumber() {
        var texts = RollupTexts()
        let samples: [[UInt8]] = [
            [], Array("a".utf8), Array("b".utf8), Array("page_enter".utf8), Array("page_leave".utf8),
            Array("0123456789abcdef-session-0001".utf8), Array("0123456789abcdef-session-0002".utf8),
            Array("0123456789abcdef".utf8), Array("0123456789abcdeg".utf8), Array("héllo wörld, ünïcode".utf8),
            Array("f\u{FFFD}o".utf8), [0x66, 0xFF, 0x6F], [0x66, 0xFE, 0x6F], [0x00], [0x00, 0x00],
        ]
        // Many more distinct texts than the first table holds, between the samples' rounds.
        var first: [String: RollupText] = [:]
        for round in 0..<3 {
            for s in samples {
                let t = text(&texts, s)!
                #expect(t.string == String(decoding: s, as: UTF8.self), "\(s)")
                if let f = first[t.string] {
                    #expect(t.id == f.id, "\(s)")
                    let sameStorage = t.string.utf8.withContiguousStorageIfAvailable { a in
                        f.string.utf8.withContiguousStorageIfAvailable { b in a.baseAddress == b.baseAddress }
                    }
                    if s.count > 15 { #expect(sameStorage == true, "\(s)") }  // smaller ones are stored inline
                } else {
                    #expect(round == 0)
                    first[t.string] = t
                }
            }
            for i in 0..<5_000 {
                let t = text(&texts, Array("id-\(i)".utf8))!
                #expect(t.string == "id-\(i)")
                if round == 0 { first[t.string] = t } else { #expect(t.id == first[t.string]?.id) }
            }
        }
        // Numbered densely from 0, one number per distinct text.
        #expect(Set(first.values.map(\.id)) == Set((0..<Int32(first.count))))
        #expect(texts.count == first.count)
        #expect(text(&texts, nil) == nil)
        #expect(text(&texts, [])?.string == "")
    }
}
