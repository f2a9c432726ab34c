import EventStore

/// What the rollup worker learnt of the rollup tables in earlier chunks, so a chunk skips the
/// statements whose answer it already knows: the numbers of `rollup_ids`, `rollup_views`,
/// `rollup_kinds` and `rollup_sources`; the distinct ids stored per day, kind and version (a known one needs no
/// INSERT); the versions with a distinct id on each day (an id new to a day only one version
/// has needs no count of its versions); the last stored page enter of each sequence (enters arriving in time order read
/// nothing) and the last click run of each actor and view (clicks after its start read nothing).
///
/// It must always say what the tables hold. So (`SQLiteEventStore.advanceRollups`): a chunk
/// works on the memory moved out of the worker and gives it back only after its COMMIT (a failed
/// chunk leaves it empty); and it is emptied when the rollups file's `data_version` moved since
/// the last chunk, that is when any other connection (a rebuild, a prune, a migration, another
/// process) committed to the file. Each map is bounded (`RecentMap`: at most twice
/// `StoreTuning.rollupMemoryEntries` entries, the least recently used generation dropped), so the worker's memory stays flat
/// however many keys pass, and a working set larger than one generation loses only its coldest
/// keys, never everything at once.
struct RollupMemory: Sendable {
    /// The rollups file's `PRAGMA data_version` when the memory was last right; nil: unknown.
    var dataVersion: Int64?
    private var idNumbers = RecentMap<AppText, Int64>(capacity: StoreTuning.rollupMemoryEntries)
    private var viewNumbers = RecentMap<AppText, Int64>(capacity: StoreTuning.rollupMemoryEntries)
    private var sourceNumbers = RecentMap<SourceKey, Int64>(capacity: StoreTuning.rollupMemoryEntries)
    private var kindNumbers = RecentMap<EventKind, Int64>(capacity: StoreTuning.rollupMemoryEntries)
    private var distinctIDs = RecentMap<DistinctID, Bool>(capacity: StoreTuning.rollupMemoryEntries)
    private var dayVersions = RecentMap<AppDay, Set<String>>(capacity: StoreTuning.rollupMemoryEntries)
    private var lastEnters = RecentMap<SequenceKey, RollupEnter>(capacity: StoreTuning.rollupMemoryEntries)
    private var lastRuns = RecentMap<RunKey, ClickRun>(capacity: StoreTuning.rollupMemoryEntries)

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
    /// An app key's UTC day (of `rollup_actors`).
    struct AppDay: Hashable {
        var appKey: String
        var day: Int64
    }
    /// A page sequence of `rollup_page_enters`.
    struct SequenceKey: Hashable {
        var appKey: String
        var version: String
        var sequence: String
    }
    /// An actor and view of `rollup_click_runs`, by their numbers (`rollup_ids`, `rollup_views`).
    struct RunKey: Hashable {
        var appKey: String
        var version: String
        var actor: Int64
        var view: Int64
    }

    /// Forgets everything (the tables changed behind it).
    mutating func clear() {
        idNumbers.clear()
        viewNumbers.clear()
        sourceNumbers.clear()
        kindNumbers.clear()
        distinctIDs.clear()
        dayVersions.clear()
        lastEnters.clear()
        lastRuns.clear()
    }

    mutating func idNumber(_ key: AppText) -> Int64? { idNumbers[key] }
    mutating func setIDNumber(_ key: AppText, _ n: Int64) { idNumbers[key] = n }

    mutating func viewNumber(_ key: AppText) -> Int64? { viewNumbers[key] }
    mutating func setViewNumber(_ key: AppText, _ n: Int64) { viewNumbers[key] = n }

    mutating func sourceNumber(_ key: SourceKey) -> Int64? { sourceNumbers[key] }
    mutating func setSourceNumber(_ key: SourceKey, _ n: Int64) { sourceNumbers[key] = n }

    mutating func kindNumber(_ key: EventKind) -> Int64? { kindNumbers[key] }
    mutating func setKindNumber(_ key: EventKind, _ n: Int64) { kindNumbers[key] = n }

    mutating func isStored(_ id: DistinctID) -> Bool { distinctIDs[id] != nil }
    mutating func setStored(_ id: DistinctID) { distinctIDs[id] = true }

    /// Every app version with a distinct id of `key`'s day in `rollup_actors` (none other has
    /// one), when known.
    mutating func versions(_ key: AppDay) -> Set<String>? { dayVersions[key] }
    mutating func setVersions(_ key: AppDay, _ versions: Set<String>) { dayVersions[key] = versions }

    /// The last stored enter of `key` (by time, then storage order), when known.
    mutating func lastEnter(_ key: SequenceKey) -> RollupEnter? { lastEnters[key] }
    mutating func setLastEnter(_ key: SequenceKey, _ enter: RollupEnter) { lastEnters[key] = enter }

    /// The stored run of `key` that starts last, when known.
    mutating func lastRun(_ key: RunKey) -> ClickRun? { lastRuns[key] }
    mutating func setLastRun(_ key: RunKey, _ run: ClickRun) { lastRuns[key] = run }
}

/// A map that keeps the keys used most recently, in two generations of at most `capacity`
/// entries each: a key is set in the current one; a key found only in the previous one moves to
/// the current one; when the current one is full it becomes the previous one (the older is
/// dropped) and a new one starts. So it holds at most `2 × capacity` entries, every key used
/// within the last `capacity` distinct keys set is still there, and a working set somewhat larger
/// than `capacity` loses only its coldest keys at each turn, not all of them.
struct RecentMap<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    let capacity: Int
    private var current: [Key: Value] = [:]
    private var previous: [Key: Value] = [:]

    init(capacity: Int) {
        precondition(capacity > 0, "a RecentMap holds at least one entry")
        self.capacity = capacity
    }

    /// Every entry of both generations.
    var count: Int { current.count + previous.count }

    subscript(key: Key) -> Value? {
        mutating get {
            if let v = current[key] { return v }
            guard let v = previous.removeValue(forKey: key) else { return nil }
            set(key, v)
            return v
        }
        set {
            guard let newValue else {
                current[key] = nil
                previous[key] = nil
                return
            }
            set(key, newValue)
        }
    }

    private mutating func set(_ key: Key, _ value: Value) {
        if current.count >= capacity, current[key] == nil {
            // The older generation's storage becomes the new current one's.
            swap(&previous, &current)
            current.removeAll(keepingCapacity: true)
        }
        previous[key] = nil
        current[key] = value
    }

    mutating func clear() {
        current.removeAll(keepingCapacity: true)
        previous.removeAll(keepingCapacity: true)
    }
}
