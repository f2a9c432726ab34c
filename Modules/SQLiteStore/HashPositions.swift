/// A map from an event key's hash (`EventKeyHash`, already well mixed) to a log position (≥ 1):
/// the dedup's index of pending keys (IngestDedup.swift), asked and changed for every event of
/// every batch before its `ACK`. Open addressing with linear probing, the hash's own low bits as
/// the slot, position 0 as the empty slot, deletion by shifting the probe run back (no
/// tombstones, so a long-running collector's probes stay short). A Swift `Dictionary` would hash
/// each key again with SipHash, three times per event.
struct HashPositions {
    /// A hash and its position side by side (one cache line read per probe); position 0: empty.
    private struct Slot {
        var hash: UInt64
        var position: Int64
    }
    private var slots: [Slot]
    private var mask: Int
    private(set) var count = 0

    init(capacity: Int = 1024) {
        var slots = 16
        while slots < capacity * 2 { slots <<= 1 }
        self.slots = Array(repeating: Slot(hash: 0, position: 0), count: slots)
        mask = slots - 1
    }

    /// The position of `hash`, nil when it has none; setting nil removes it. A position set
    /// must be ≥ 1 (the log's positions are).
    subscript(hash: UInt64) -> Int64? {
        get {
            slots.withUnsafeBufferPointer { slots in
                var i = Int(truncatingIfNeeded: hash) & mask
                while slots[i].position != 0 {
                    if slots[i].hash == hash { return slots[i].position }
                    i = (i + 1) & mask
                }
                return nil
            }
        }
        set {
            if let position = newValue {
                precondition(position > 0, "HashPositions holds log positions, which start at 1")
                insert(hash, position)
            } else {
                remove(hash)
            }
        }
    }

    private mutating func insert(_ hash: UInt64, _ position: Int64) {
        if (count + 1) * 2 > slots.count { grow() }
        let mask = mask
        let added = slots.withUnsafeMutableBufferPointer { slots in
            var i = Int(truncatingIfNeeded: hash) & mask
            while slots[i].position != 0 {
                if slots[i].hash == hash {
                    slots[i].position = position
                    return false
                }
                i = (i + 1) & mask
            }
            slots[i] = Slot(hash: hash, position: position)
            return true
        }
        if added { count += 1 }
    }

    private mutating func remove(_ hash: UInt64) {
        let mask = mask
        let removed = slots.withUnsafeMutableBufferPointer { slots in
            var i = Int(truncatingIfNeeded: hash) & mask
            while slots[i].position != 0, slots[i].hash != hash { i = (i + 1) & mask }
            guard slots[i].position != 0 else { return false }
            // Shift back every later entry of the run whose home slot does not lie in (hole, it].
            var hole = i
            var next = (i + 1) & mask
            while slots[next].position != 0 {
                let home = Int(truncatingIfNeeded: slots[next].hash) & mask
                if (hole - home) & mask <= (next - home) & mask {
                    slots[hole] = slots[next]
                    hole = next
                }
                next = (next + 1) & mask
            }
            slots[hole].position = 0
            return true
        }
        if removed { count -= 1 }
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(hash: 0, position: 0), count: old.count * 2)
        mask = slots.count - 1
        count = 0
        for slot in old where slot.position != 0 { insert(slot.hash, slot.position) }
    }
}
