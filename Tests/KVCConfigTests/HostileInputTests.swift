import EventModel
import Testing

@testable import KVCConfig
@testable import SourceInventory

/// Mangled documents and sources: every one gives problems or a plan, never a crash or a hang.
@Suite struct HostileInputTests {
    /// A small deterministic generator, so a failure can be replayed.
    struct Mangler {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }

        /// `text` with a few bytes deleted, duplicated or replaced by structural characters.
        mutating func mangle(_ text: [UInt8]) -> [UInt8] {
            var b = text
            let alphabet = Array("{}[]<>/\"\\:,&;#!- \n0aZ".utf8)
            for _ in 0..<(1 + next(4)) where !b.isEmpty {
                let i = next(b.count)
                switch next(3) {
                case 0: b.remove(at: i)
                case 1: b.insert(b[i], at: i)
                default: b[i] = alphabet[next(alphabet.count)]
                }
            }
            return b
        }
    }

    @Test func mangledDocumentsNeverCrash() throws {
        var m = Mangler(state: 42)
        let seeds = [SpecDocuments.eventTable, SpecDocuments.labelled, SpecDocuments.rules].flatMap { json -> [[UInt8]] in
            let v = (try? JSONValue.parse(json)) ?? .null
            return [Array(json.utf8), Array(PlistText.document(v).utf8)]
        }
        var loaded = 0
        var rejected = 0
        for round in 0..<400 {
            let text = m.mangle(seeds[round % seeds.count])
            let r = ConfigLoader.read(data: text, file: "fuzz")
            if r.problems.isEmpty { loaded += 1 } else { rejected += 1 }
            for p in r.problems { #expect(p.location.file == "fuzz") }
        }
        #expect(loaded + rejected == 400)
        #expect(rejected > 0)
    }

    @Test func mangledSourcesNeverCrash() {
        var m = Mangler(state: 7)
        let source = Array(InventoryBuilderTests.home.utf8)
        for _ in 0..<200 {
            _ = InventoryBuilder.inventory(source: String(decoding: m.mangle(source), as: UTF8.self))
        }
        #expect(!InventoryBuilder.inventory(source: InventoryBuilderTests.home).classes.isEmpty)
    }
}
