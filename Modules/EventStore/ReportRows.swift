import EventModel

/// Counts over the events a filter selects (rejected events and batches: by app key only).
public struct StoreTotals: Sendable, Hashable {
    public var events: Int
    public var rejected: Int
    /// Repeats dropped, summed over every received batch.
    public var duplicates: Int
    public var batches: Int
    /// Distinct app keys among stored events.
    public var apps: Int

    public init(events: Int = 0, rejected: Int = 0, duplicates: Int = 0, batches: Int = 0, apps: Int = 0) {
        self.events = events
        self.rejected = rejected
        self.duplicates = duplicates
        self.batches = batches
        self.apps = apps
    }
}

/// How many stored events have one type and name.
public struct EventCount: Sendable, Hashable {
    public var type: String
    public var name: String
    public var count: Int

    public init(type: String, name: String, count: Int) {
        self.type = type
        self.name = name
        self.count = count
    }
}

/// Page enters and leaves, and the mean dwell time of leaves that carry a `duration`.
public struct PageActivity: Sendable, Hashable {
    public var page: String
    public var enters: Int
    public var leaves: Int
    /// Mean `duration` of `page_leave` events, in milliseconds; nil when none had one.
    public var meanDwellMilliseconds: Double?

    public init(page: String, enters: Int, leaves: Int, meanDwellMilliseconds: Double?) {
        self.page = page
        self.enters = enters
        self.leaves = leaves
        self.meanDwellMilliseconds = meanDwellMilliseconds
    }
}

/// How many events of one app and type were produced at one canonical view path with one title.
public struct PathCount: Sendable, Hashable {
    public var appKey: String
    /// The app version the events' HELLO named, nil where none was given.
    public var appVersion: String?
    public var type: String
    public var path: String
    /// `props.title` as text, nil where the events have none.
    public var title: String?
    public var count: Int

    public init(appKey: String, appVersion: String? = nil, type: String, path: String, title: String? = nil, count: Int) {
        self.appKey = appKey
        self.appVersion = appVersion
        self.type = type
        self.path = path
        self.title = title
        self.count = count
    }
}

/// How many events of one type at one path (and title) carry one value under a `props` key.
public struct PropValueCount: Sendable, Hashable {
    /// The app version the events' HELLO named, nil where none was given.
    public var appVersion: String?
    public var type: String
    public var path: String
    /// `props.title` as text, nil where the events have none.
    public var title: String?
    /// `props.rules` (the tracker's comma-joined ids of the rules whose values the event carries), nil when absent.
    public var rules: String?
    /// Strings as they are; numbers, booleans and null as JSON would write them.
    public var value: String
    public var count: Int

    public init(
        appVersion: String? = nil, type: String, path: String, title: String? = nil, rules: String? = nil, value: String,
        count: Int
    ) {
        self.appVersion = appVersion
        self.type = type
        self.path = path
        self.title = title
        self.rules = rules
        self.value = value
        self.count = count
    }
}

/// `kvc_error` events of one rule and app version.
public struct KVCErrorCount: Sendable, Hashable {
    public var appKey: String
    /// `props.ruleId` (KVCConfig's `KVCErrorRecord`), else `props.rule`, else the event's name.
    public var rule: String
    /// `props.appVersion`, else the version the agent gave in `HELLO`, else `(unknown)`.
    public var appVersion: String
    public var count: Int
    /// Distinct `props.keyPath` values, sorted.
    public var keyPaths: [String]
    /// Distinct `props.missingKey` values, sorted.
    public var missingKeys: [String]

    public init(appKey: String, rule: String, appVersion: String, count: Int, keyPaths: [String], missingKeys: [String]) {
        self.appKey = appKey
        self.rule = rule
        self.appVersion = appVersion
        self.count = count
        self.keyPaths = keyPaths
        self.missingKeys = missingKeys
    }
}

/// How many events carry one value (a rule's values, a definition's values).
public struct ValueCount: Sendable, Hashable {
    public var value: String
    public var count: Int

    public init(value: String, count: Int) {
        self.value = value
        self.count = count
    }

    /// `counts` most frequent first, ties by value.
    public static func mostFrequent(_ counts: [String: Int]) -> [ValueCount] {
        counts.map { ValueCount(value: $0.key, count: $0.value) }.sorted { ($0.count, $1.value) > ($1.count, $0.value) }
    }
}

/// How many rejected events share one reason.
public struct ReasonCount: Sendable, Hashable {
    public var reason: String
    public var count: Int

    public init(reason: String, count: Int) {
        self.reason = reason
        self.count = count
    }
}

