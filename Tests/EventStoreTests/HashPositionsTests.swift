@testable import SQLiteStore
import Testing

/// The dedup's index of pending keys (HashPositions.swift) answers as a dictionary would through
/// inserts, overwrites, removals inside probe runs and growth, with hashes chosen to collide.
@Suite struct HashPositionsTests {
    /// A random sequence of sets and removals, checked against `Dictionary` after every step.
    /// Half the hashes share their low bits (one long probe run), so removals shift entries back.
    @Test func itAnswersAsADictionaryThroughSetsRemovalsAndGrowth() {
        var table = HashPositions(capacity: 4)
        var model: [UInt64: Int64] = [:]
        var random = SystemRandomNumberGenerator()
        var keys: [UInt64] = []
        for i in 0..<400 {
            // Every other key has the low 12 bits 0x5A5: they all land in one slot's run.
            let high = UInt64.random(in: 1...UInt64.max >> 12, using: &random) << 12
            keys.append(i % 2 == 0 ? high | 0x5A5 : UInt64.random(in: 0...UInt64.max, using: &random))
        }
        for step in 0..<20_000 {
            let key = keys[Int.random(in: 0..<keys.count, using: &random)]
            if Bool.random(using: &random) {
                let position = Int64(step + 1)
                table[key] = position
                model[key] = position
            } else {
                table[key] = nil
                model[key] = nil
            }
            #expect(table.count == model.count)
            if step % 97 == 0 {
                for k in keys { #expect(table[k] == model[k], "key \(k) at step \(step)") }
            }
        }
        for k in keys { #expect(table[k] == model[k]) }
    }

    @Test func aRemovedKeyLeavesTheKeysAfterItInItsRunFindable() {
        var table = HashPositions(capacity: 8)
        // Four keys of one home slot, then remove the first and the third.
        let run: [UInt64] = [0x100, 0x200, 0x300, 0x400].map { $0 << 8 }
        for (i, k) in run.enumerated() { table[k] = Int64(i + 1) }
        table[run[0]] = nil
        table[run[2]] = nil
        #expect(table[run[0]] == nil)
        #expect(table[run[1]] == 2)
        #expect(table[run[2]] == nil)
        #expect(table[run[3]] == 4)
        #expect(table.count == 2)
    }
}
