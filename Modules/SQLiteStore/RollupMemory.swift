import EventStore

/// What the rollup worker learnt of the rollup tables in earlier chunks, so a chunk skips the
/// statements whose answer it already knows: the numbers of `rollup_ids`, `rollup_kinds` and
/// `rollup_sources`; the distinct ids stored per day, kind and version (a known one needs no
/// INSERT); the last stored page enter of each sequence (enters arriving in time order read
/// nothing) and the last click run of each actor and view (clicks after its start read nothing).
///
/// It must always say what the tables hold. So (`SQLiteEventStore.advanceRollups`): a chunk
/// works on the memory moved out of the worker and gives it back only after its COMMIT (a failed
/// chunk leaves it empty); and it is emptied when the rollups file's `data_version` moved since
/// the last chunk, that is when any other connection (a rebuild, a prune, a migration, another
/// process) committed to the file. Each map is bounded (`capacity` entries, emptied when full),
/// so the worker's memory stays flat however many keys pass.
struct RollupMemory: Sendable {
    /// Entries per map, at most: a few MiB each.
    static let capacity = 65_536

    /// The rollups file's `PRAGMA data_version` when the memory was last right; nil: unknown.
    var dataVersion: Int64?
    private(set) var idNumbers: [AppText: Int64] = [:]
    private(set) var sourceNumbers: [SourceKey: Int64] = [:]
    private(set) var kindNumbers: [EventKind: Int64] = [:]
    private(set) var distinctIDs: Set<DistinctID> = []
    private(set) var lastEnters: [SequenceKey: RollupEnter] = [:]
    private(set) var lastRuns: [RunKey: ClickRun] = [:]

    /// An app key's text (an id of `rollup_ids`).
    struct AppText: Hashable {
        var appKey: String
        var text: String
    }
    /// A row of `rollup_actors`.
    struct DistinctID: Hashable {
        var appKey: String
        var version: String
        var day: Int64
        var kind: String
        var id: String
    }
    /// A page sequence of `rollup_page_enters`.
    struct SequenceKey: Hashable {
        var appKey: String
        var version: String
        var sequence: String
    }
    /// An actor and view of `rollup_click_runs`.
    struct RunKey: Hashable {
        var appKey: String
        var version: String
        var actor: String
        var view: String
    }

    /// Forgets everything (the tables changed behind it).
    mutating func clear() {
        idNumbers.removeAll(keepingCapacity: true)
        sourceNumbers.removeAll(keepingCapacity: true)
        kindNumbers.removeAll(keepingCapacity: true)
        distinctIDs.removeAll(keepingCapacity: true)
        lastEnters.removeAll(keepingCapacity: true)
        lastRuns.removeAll(keepingCapacity: true)
    }

    func idNumber(_ key: AppText) -> Int64? { idNumbers[key] }
    mutating func setIDNumber(_ key: AppText, _ n: Int64) { Self.put(&idNumbers, key, n) }

    func sourceNumber(_ key: SourceKey) -> Int64? { sourceNumbers[key] }
    mutating func setSourceNumber(_ key: SourceKey, _ n: Int64) { Self.put(&sourceNumbers, key, n) }

    func kindNumber(_ key: EventKind) -> Int64? { kindNumbers[key] }
    mutating func setKindNumber(_ key: EventKind, _ n: Int64) { Self.put(&kindNumbers, key, n) }

    func isStored(_ id: DistinctID) -> Bool { distinctIDs.contains(id) }
    mutating func setStored(_ id: DistinctID) {
        if distinctIDs.count >= Self.capacity { distinctIDs.removeAll(keepingCapacity: true) }
        distinctIDs.insert(id)
    }

    /// The last stored enter of `key` (by time, then storage order), when known.
    func lastEnter(_ key: SequenceKey) -> RollupEnter? { lastEnters[key] }
    mutating func setLastEnter(_ key: SequenceKey, _ enter: RollupEnter) { Self.put(&lastEnters, key, enter) }

    /// The stored run of `key` that starts last, when known.
    func lastRun(_ key: RunKey) -> ClickRun? { lastRuns[key] }
    mutating func setLastRun(_ key: RunKey, _ run: ClickRun) { Self.put(&lastRuns, key, run) }

    private static func put<Key, Value>(_ map: inout [Key: Value], _ key: Key, _ value: Value) {
        if map.count >= capacity, map[key] == nil { map.removeAll(keepingCapacity: true) }
        map[key] = value
    }
}
