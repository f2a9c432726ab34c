@testable import SQLiteStore
import Testing

/// The rollup memory's maps (RollupMemory.swift, `RecentMap`) stay bounded and, when a working
/// set outgrows one generation, lose only the keys not used since the last turn.
@Suite struct RecentMapTests {
    @Test func itHoldsAtMostTwoGenerationsHoweverManyKeysPass() {
        var map = RecentMap<Int, Int>(capacity: 100)
        for k in 0..<10_000 {
            map[k] = k
            #expect(map.count <= 200)
        }
        // The last 100 keys set are all still there.
        for k in 9_900..<10_000 { #expect(map[k] == k) }
        #expect(map[0] == nil)
    }

    @Test func aKeyUsedSinceTheLastTurnSurvivesTheNextOne() {
        var map = RecentMap<Int, String>(capacity: 4)
        for k in 0..<4 { map[k] = "v\(k)" }
        map[4] = "v4"  // turn: 0...3 become the previous generation
        #expect(map[1] == "v1")  // read back: moves to the current generation
        for k in 5..<7 { map[k] = "v\(k)" }  // current: 4, 1, 5, 6 (full)
        map[7] = "v7"  // turn: 0, 2, 3 dropped; 4, 1, 5, 6 kept
        #expect(map[1] == "v1")
        #expect(map[4] == "v4")
        #expect(map[0] == nil)
        #expect(map[2] == nil)
        #expect(map[3] == nil)
    }

    @Test func settingNilAndClearingForgetTheKeys() {
        var map = RecentMap<String, Int>(capacity: 2)
        map["a"] = 1
        map["b"] = 2
        map["c"] = 3  // "a" and "b" in the previous generation
        map["a"] = nil
        #expect(map["a"] == nil)
        #expect(map["b"] == 2)
        map.clear()
        #expect(map.count == 0)
        #expect(map["c"] == nil)
    }
}
