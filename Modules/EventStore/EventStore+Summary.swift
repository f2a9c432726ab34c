import EventModel

/// Counts over the whole database.
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

/// How many rejected events share one reason.
public struct ReasonCount: Sendable, Hashable {
    public var reason: String
    public var count: Int

    public init(reason: String, count: Int) {
        self.reason = reason
        self.count = count
    }
}

extension EventStore {
    /// Totals over the whole database.
    public func totals() throws(SQLiteError) -> StoreTotals {
        let r = try read(
            """
            SELECT (SELECT COUNT(*) FROM events), (SELECT COUNT(*) FROM rejected),
                   (SELECT COALESCE(SUM(duplicates), 0) FROM batches), (SELECT COUNT(*) FROM batches),
                   (SELECT COUNT(DISTINCT app_key) FROM events)
            """)
        let v = r.first ?? []
        func at(_ i: Int) -> Int { i < v.count ? Int(v[i].int ?? 0) : 0 }
        return StoreTotals(events: at(0), rejected: at(1), duplicates: at(2), batches: at(3), apps: at(4))
    }

    /// Events by type and name, most frequent first (ties by type, then name).
    public func eventCounts() throws(SQLiteError) -> [EventCount] {
        try read("SELECT type, name, COUNT(*) AS n FROM events GROUP BY type, name ORDER BY n DESC, type, name").map {
            EventCount(type: $0[0].text ?? "", name: $0[1].text ?? "", count: Int($0[2].int ?? 0))
        }
    }

    /// Page events grouped by `page` (or, where an event has none, its `name`), by page name.
    public func pageActivity() throws(SQLiteError) -> [PageActivity] {
        try read(
            """
            SELECT COALESCE(page, name) AS p,
                   SUM(type = 'page_enter'), SUM(type = 'page_leave'),
                   AVG(duration) FILTER (WHERE type = 'page_leave' AND duration IS NOT NULL)
            FROM events WHERE type IN ('page_enter', 'page_leave')
            GROUP BY p ORDER BY p
            """
        ).map {
            PageActivity(
                page: $0[0].text ?? "", enters: Int($0[1].int ?? 0), leaves: Int($0[2].int ?? 0),
                meanDwellMilliseconds: $0[3].double)
        }
    }

    /// Events per app, type, canonical path and title (events without a path are left out), sorted.
    public func pathCounts() throws(SQLiteError) -> [PathCount] {
        try read(
            """
            SELECT app_key, type, path, CAST(json_extract(props, '$.title') AS TEXT) AS title, app_version, COUNT(*)
            FROM events WHERE path IS NOT NULL
            GROUP BY app_key, app_version, type, path, title ORDER BY app_key, app_version, type, path, title
            """
        ).map {
            PathCount(
                appKey: $0[0].text ?? "", appVersion: $0[4].text, type: $0[1].text ?? "", path: $0[2].text ?? "",
                title: $0[3].text, count: Int($0[5].int ?? 0))
        }
    }

    /// For `appKey`'s events that have a path, how many carry each value under `props[key]`,
    /// by type, path, title and `props.rules`.
    public func propValueCounts(appKey: String, key: String) throws(SQLiteError) -> [PropValueCount] {
        // json_each compares the key as a plain string, so any key works, quotes and dots included.
        try read(
            """
            SELECT e.type, e.path, CAST(json_extract(e.props, '$.title') AS TEXT) AS title,
                   CAST(json_extract(e.props, '$.rules') AS TEXT) AS rules,
                   CASE j.type WHEN 'text' THEN j.value WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'
                               WHEN 'null' THEN 'null' ELSE CAST(j.value AS TEXT) END AS v,
                   e.app_version, COUNT(*)
            FROM events AS e, json_each(e.props) AS j
            WHERE e.app_key = ? AND e.path IS NOT NULL AND j.key = ?
            GROUP BY e.app_version, e.type, e.path, title, rules, v ORDER BY e.app_version, e.type, e.path, title, rules, v
            """, [.text(appKey), .text(key)]
        ).map {
            PropValueCount(
                appVersion: $0[5].text, type: $0[0].text ?? "", path: $0[1].text ?? "", title: $0[2].text, rules: $0[3].text,
                value: $0[4].text ?? "", count: Int($0[6].int ?? 0))
        }
    }

    /// `kvc_error` events by app, rule and app version, most frequent first.
    public func kvcErrorCounts() throws(SQLiteError) -> [KVCErrorCount] {
        let rows = try read(
            """
            SELECT app_key,
                   COALESCE(CAST(json_extract(props, '$.ruleId') AS TEXT), CAST(json_extract(props, '$.rule') AS TEXT), name) AS rule,
                   COALESCE(CAST(json_extract(props, '$.appVersion') AS TEXT), app_version, '(unknown)') AS version,
                   COUNT(*) AS n,
                   json_group_array(DISTINCT CAST(json_extract(props, '$.keyPath') AS TEXT))
                       FILTER (WHERE json_extract(props, '$.keyPath') IS NOT NULL),
                   json_group_array(DISTINCT CAST(json_extract(props, '$.missingKey') AS TEXT))
                       FILTER (WHERE json_extract(props, '$.missingKey') IS NOT NULL)
            FROM events WHERE type = 'kvc_error'
            GROUP BY app_key, rule, version ORDER BY n DESC, app_key, rule, version
            """)
        func strings(_ v: SQLiteValue) -> [String] {
            guard let text = v.text, let array = (try? JSONValue.parse(text))?.arrayValue else { return [] }
            return array.compactMap(\.stringValue).sorted()
        }
        return rows.map {
            KVCErrorCount(
                appKey: $0[0].text ?? "", rule: $0[1].text ?? "", appVersion: $0[2].text ?? "", count: Int($0[3].int ?? 0),
                keyPaths: strings($0[4]), missingKeys: strings($0[5]))
        }
    }

    /// Rejected events by reason, most frequent first.
    public func rejectedCounts() throws(SQLiteError) -> [ReasonCount] {
        try read("SELECT reason, COUNT(*) AS n FROM rejected GROUP BY reason ORDER BY n DESC, reason").map {
            ReasonCount(reason: $0[0].text ?? "", count: Int($0[1].int ?? 0))
        }
    }
}
