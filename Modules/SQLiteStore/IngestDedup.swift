/// Which events of a batch were stored before, decided before the batch's `ACK`, which counts
/// them as duplicates (docs/wire.md): the ingest log's appends do not insert into `events`, whose
/// unique index used to decide it (IngestLog.swift).
///
/// An event `(app key, id)` is a repeat when it is
/// - in a batch logged but not yet stored in `events` (`pending`: by `EventKeyHash`, then the
///   bytes compared in that batch), this one included, at an earlier row; or
/// - in `events`: looked up (`SELECT` on its unique index) when the filter of stored keys
///   (`EventIdFilter`) says "maybe", or when no filter is built yet. A "no" is certain, so most
///   new events cost a hash, one cache line and a dictionary insert, and no lookup.
///
/// The lookups read `events` in a snapshot taken after `prune(through:)` forgot the batches
/// stored up to then: every key is in that snapshot or still pending, never in neither.
///
/// Used under the ingest log's lock only (SQLiteEventStore+Ingest.swift).
struct IngestDedup: ~Copyable {
    /// A logged batch not yet stored in `events`, with the hash of each valid row's key.
    final class Entry {
        let position: Int64
        let batch: PendingBatch
        var hashes: [UInt64] = []
        init(position: Int64, batch: PendingBatch) {
            self.position = position
            self.batch = batch
        }
    }

    /// The connection that looks keys up in `events` (read-only); nil once closed.
    private var lookup: SQLiteDatabase?
    /// True while `lookup` holds a read snapshot (from the first lookup after `prune`).
    private var reading = false
    /// The logged batches not yet stored, in position order (a stored one goes at once: its
    /// rows' memory with it).
    private var entries: [Entry] = []
    /// A key's hash → the position of the first pending batch with a key of that hash.
    private var pending = HashPositions()
    /// Further positions of a hash whose keys differ (two keys with one hash: rare).
    private var collisions: [UInt64: [Int64]] = [:]
    /// Every key stored or pending, when built (`FilterBuild`); nil before: every key is looked up.
    private(set) var filter: EventIdFilter?
    /// A larger filter being built on another thread: keys pending or logged since its start
    /// go into it too.
    private(set) var building: EventIdFilter?
    /// Lookups in `events` so far (for tests and the bench).
    private(set) var lookups = 0

    init(lookup: sending SQLiteDatabase) {
        self.lookup = lookup
    }

    /// Forgets the batches stored in `events` up to `applied`, and ends the read snapshot: the
    /// next lookup sees them there.
    mutating func prune(through applied: Int64) {
        if reading {
            try? lookup?.execute("COMMIT")
            reading = false
        }
        var stored = 0
        while stored < entries.count, entries[stored].position <= applied {
            for h in entries[stored].hashes { release(h, of: entries[stored].position) }
            stored += 1
        }
        entries.removeFirst(stored)
    }

    /// Takes `position` off the pending batches holding a key of hash `h`.
    private mutating func release(_ h: UInt64, of position: Int64) {
        if pending[h] == position {
            if var more = collisions[h], !more.isEmpty {
                pending[h] = more.removeFirst()
                collisions[h] = more.isEmpty ? nil : more
            } else {
                pending[h] = nil
            }
        } else if let more = collisions[h] {
            let kept = more.filter { $0 != position }
            collisions[h] = kept.isEmpty ? nil : kept
        }
    }

    /// Counts `batch`, to be logged at `position`, as the `ACK` will: each valid event stored
    /// or a duplicate; registers its new keys as pending. Call in position order.
    mutating func count(_ batch: PendingBatch, position: Int64) throws(SQLiteError) -> (stored: Int, duplicates: Int) {
        let entry = Entry(position: position, batch: batch)
        entries.append(entry)
        var stored = 0, duplicates = 0
        let rows = batch.validCount
        entry.hashes.reserveCapacity(rows)
        let key = EventKeyHash(appKey: batch.appKey)
        for row in 0..<rows {
            let h = batch.idBytes(row) { key.hash(id: $0) }
            var repeated = false
            let first = pending[h]
            if let first {
                repeated = contains(batch, row, hash: h, at: first) || (collisions[h] ?? []).contains { contains(batch, row, hash: h, at: $0) }
            }
            if !repeated, filter?.mayContain(h) ?? true {
                repeated = try isStored(batch, row)
            }
            entry.hashes.append(h)
            if repeated {
                duplicates += 1
                continue
            }
            stored += 1
            if let first {
                if first != position { collisions[h, default: []].append(position) }
            } else {
                pending[h] = position
            }
            filter?.insert(h)
            building?.insert(h)
        }
        return (stored, duplicates)
    }

    /// Registers every valid key of `batch`, logged at `position`, as pending without counting
    /// (a batch read back from the log at open: its counts were given).
    mutating func register(_ batch: PendingBatch, position: Int64) {
        let entry = Entry(position: position, batch: batch)
        entries.append(entry)
        let key = EventKeyHash(appKey: batch.appKey)
        for row in 0..<batch.validCount {
            let h = batch.idBytes(row) { key.hash(id: $0) }
            entry.hashes.append(h)
            if let first = pending[h] {
                if first != position, !(collisions[h] ?? []).contains(position) { collisions[h, default: []].append(position) }
            } else {
                pending[h] = position
            }
            filter?.insert(h)
            building?.insert(h)
        }
    }

    /// Forgets the batches counted at `positions` and after (their log write failed: they were
    /// not logged). Their keys stay in the filters: a "maybe" more, never a wrong "no".
    mutating func forget(from position: Int64) {
        while let last = entries.last, last.position >= position {
            for h in last.hashes { release(h, of: last.position) }
            entries.removeLast()
        }
    }

    /// True when the pending batch at `position` holds the key of `batch`'s `row` (at an earlier
    /// row when it is `batch` itself: its entry's hashes reach only that far).
    private func contains(_ batch: PendingBatch, _ row: Int, hash: UInt64, at position: Int64) -> Bool {
        guard let entry = entry(at: position) else { return false }
        return batch.idBytes(row) { id in
            for (other, h) in entry.hashes.enumerated() where h == hash {
                if entry.batch.appKey.utf8.elementsEqual(batch.appKey.utf8), entry.batch.idBytes(other, { $0.elementsEqual(id) }) {
                    return true
                }
            }
            return false
        }
    }

    private func entry(at position: Int64) -> Entry? {
        var low = 0, high = entries.count
        while low < high {
            let mid = (low + high) / 2
            if entries[mid].position < position { low = mid + 1 } else { high = mid }
        }
        return low < entries.count && entries[low].position == position ? entries[low] : nil
    }

    /// True when `events` holds the key of `batch`'s `row` (one lookup on its unique index).
    private mutating func isStored(_ batch: PendingBatch, _ row: Int) throws(SQLiteError) -> Bool {
        guard let lookup else { throw SQLiteError(code: SQLiteCode.misuse, message: "the store was closed", sql: "lookup") }
        if !reading {
            try lookup.execute("BEGIN")
            reading = true
        }
        lookups += 1
        return try lookup.exists(Self.lookupKey, batch.key(row), values: 0..<2)
    }

    private static let lookupKey = HotStatement("SELECT 1 FROM events WHERE app_key = ? AND id = ?")

    /// Closes the lookup connection, and returns it to be released outside the caller's lock
    /// (its deinit closes the handle). The store closes it before its own connection, so that one
    /// is the last and removes the database's WAL.
    mutating func close() -> SQLiteDatabase? {
        defer { lookup = nil }
        return lookup
    }

    // MARK: building a filter

    /// Starts a filter for `capacity` keys, holding every pending key; `FilterBuild` adds the
    /// stored ones, and every key counted meanwhile goes in too.
    mutating func startBuilding(capacity: Int) {
        var filter = EventIdFilter(capacity: capacity)
        for entry in entries { for h in entry.hashes { filter.insert(h) } }
        building = filter
    }

    /// Adds stored keys' hashes to the filter being built.
    mutating func addBuilt(_ hashes: [UInt64]) {
        for h in hashes { building?.insert(h) }
    }

    /// The filter being built holds every stored key: it answers from now on.
    mutating func finishBuilding() {
        if let building { filter = building }
        building = nil
    }

    /// True when the filter holds more keys than it was sized for (its "maybe"s grow).
    var filterFull: Bool { filter.map { $0.inserted > $0.capacity } ?? false }

    /// Batches pending (for tests).
    var pendingBatches: Int { entries.count }
}
