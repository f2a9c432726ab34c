import EventModel
/// How many events of one app, app version, UTC day, type, canonical path and title were stored:
/// what counting a definition (a rule's events, a snapshot's heatmap) reads
/// (`ReportStore.pathDayCounts`).
public struct PathDayCount: Sendable, Hashable {
    public var appKey: String
    /// The app version the events' HELLO named, nil where none was given.
    public var appVersion: String?
    /// The UTC day of the corrected time (`UTCDay.number(of:)`).
    public var day: Int64
    public var type: String
    public var path: String
    /// `props.title` when it is a string, nil otherwise.
    public var title: String?
    /// `props[PathDayQuery.valueKey]` as text (`PropValueCount.value`'s spelling), nil where the
    /// events have none or the query names no key.
    public var value: String?
    public var count: Int

    public init(
        appKey: String, appVersion: String?, day: Int64, type: String, path: String, title: String?, value: String? = nil, count: Int
    ) {
        self.appKey = appKey
        self.appVersion = appVersion
        self.day = day
        self.type = type
        self.path = path
        self.title = title
        self.value = value
        self.count = count
    }
}

/// Which events `ReportStore.pathDayCounts` groups: those `filter` selects that have a path,
/// of `types` only when it names any, at one of `paths` only when it names any.
public struct PathDayQuery: Sendable, Hashable {
    public var filter: EventFilter
    /// Wire types (`click`, ...); empty keeps every type.
    public var types: [String]
    /// Exact canonical paths; empty keeps every path.
    public var paths: [String]
    /// A `props` key whose value also groups the rows (`PathDayCount.value`), nil for none.
    public var valueKey: String?

    public init(filter: EventFilter = .all, types: [String] = [], paths: [String] = [], valueKey: String? = nil) {
        self.filter = filter
        self.types = types
        self.paths = paths
        self.valueKey = valueKey
    }

    /// True when the query keeps an event of this type at this path.
    public func keeps(type: String, path: String) -> Bool {
        (types.isEmpty || types.contains(type)) && (paths.isEmpty || paths.contains(path))
    }
}

extension ReportStore {
    /// The default `pathDayCounts`: reads `events` (props included, for the title) and counts in
    /// memory. Rows come sorted by app key, version (nil first), day, type, path, title (nil first).
    public func countingPathDays(_ query: PathDayQuery) throws(StoreError) -> [PathDayCount] {
        var counts: [PathDayKey: Int] = [:]
        try events(EventQuery(filter: query.filter, types: query.types)) { stored in
            let e = stored.event
            guard let path = e.path, query.keeps(type: e.type.rawValue, path: path) else { return true }
            let title = e.props["title"]?.stringValue
            let value = query.valueKey.flatMap { e.props[$0] }.map { $0.stringValue ?? $0.jsonText }
            let key = PathDayKey(
                appKey: stored.appKey, appVersion: stored.appVersion, day: UTCDay.number(of: stored.time), type: e.type.rawValue,
                path: path, title: title, value: value)
            counts[key, default: 0] += 1
            return true
        }
        return counts.map {
            PathDayCount(
                appKey: $0.key.appKey, appVersion: $0.key.appVersion, day: $0.key.day, type: $0.key.type, path: $0.key.path,
                title: $0.key.title, value: $0.key.value, count: $0.value)
        }.sorted(by: PathDayCount.storeOrder)
    }

    public func pathDayCounts(_ query: PathDayQuery) throws(StoreError) -> [PathDayCount] {
        try countingPathDays(query)
    }
}

/// A `PathDayCount` without its count: what the default implementation groups by.
private struct PathDayKey: Hashable {
    var appKey: String, appVersion: String?, day: Int64, type: String, path: String, title: String?, value: String?
}

extension PathDayCount {
    /// The order every store returns rows in: app key, version (nil first), day, type, path,
    /// title, value (nil first), strings by their UTF-8 bytes.
    public static func storeOrder(_ a: PathDayCount, _ b: PathDayCount) -> Bool {
        func bytes(_ s: String?) -> [UInt8]? { s.map { Array($0.utf8) } }
        func less(_ x: [UInt8]?, _ y: [UInt8]?) -> Bool? {
            if x == y { return nil }
            guard let x else { return true }
            guard let y else { return false }
            return x.lexicographicallyPrecedes(y)
        }
        if let r = less(bytes(a.appKey), bytes(b.appKey)) { return r }
        if let r = less(bytes(a.appVersion), bytes(b.appVersion)) { return r }
        if a.day != b.day { return a.day < b.day }
        if let r = less(bytes(a.type), bytes(b.type)) { return r }
        if let r = less(bytes(a.path), bytes(b.path)) { return r }
        if let r = less(bytes(a.title), bytes(b.title)) { return r }
        return less(bytes(a.value), bytes(b.value)) ?? false
    }
}
