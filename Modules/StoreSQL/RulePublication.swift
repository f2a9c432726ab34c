public import EventStore

/// A publish (`CollectorStore.publish`) as statements, written once for both stores: for every
/// app key among the rules (and those named besides), that app's rule set is replaced by the
/// given rules, in their order, with the sample rate and its ETag. Each store runs `statements`
/// in order in one transaction of its own.
///
/// Replacing rather than merging makes a publish the truth for its apps: a rule removed from the
/// file stops being served.
public struct RulePublication: Sendable {
    /// The apps published, each once, in order of first appearance.
    public let appKeys: [String]
    /// Each app's rules in the order stored: a repeated id within one publish keeps the later
    /// rule, at the later place.
    public let rules: [String: [StoredRule]]
    public let sampleRate: Double
    /// Milliseconds since the epoch.
    public let publishedAt: Int64

    public init(_ rules: [StoredRule], sampleRate: Double, appKeys also: [String], publishedAt: Int64) {
        var seen = Set<String>()
        appKeys = (rules.map(\.appKey) + also).filter { seen.insert($0).inserted }
        var byApp: [String: [StoredRule]] = [:]
        for r in rules {
            byApp[r.appKey, default: []].removeAll { $0.id == r.id }
            byApp[r.appKey, default: []].append(r)
        }
        self.rules = byApp
        self.sampleRate = sampleRate
        self.publishedAt = publishedAt
    }

    /// How many rules the published apps have afterwards.
    public var ruleCount: Int { appKeys.reduce(0) { $0 + (rules[$1]?.count ?? 0) } }

    /// Rules per INSERT: one statement for many rules, a few texts to prepare.
    static let rulesPerInsert = 64

    /// The statements, in order. PostgreSQL first locks the app's rule set row, so publishes of
    /// one app from two collectors at once run one after the other, whole (SQLite's writer holds
    /// the database's one write lock from `BEGIN IMMEDIATE`).
    public func statements(_ dialect: SQLDialect) -> [SQLQuery] {
        statements(dialect, storing: { $0 })
    }

    /// The statements with each text of the rules (app key, rule id, rule JSON) bound as the store
    /// keeps text (`stored`: PostgreSQL's NUL escape); the ETag stays that of the rules as published.
    public func statements(_ dialect: SQLDialect, storing stored: (String) -> String) -> [SQLQuery] {
        var all: [SQLQuery] = []
        for appKey in appKeys {
            let key = stored(appKey)
            if dialect == .postgres { all.append("SELECT 1 FROM rule_sets WHERE app_key = \(key) FOR UPDATE") }
            all.append("DELETE FROM rules WHERE app_key = \(key)")
            let ordered = rules[appKey] ?? []
            var position = 0
            while position < ordered.count {
                let chunk = ordered[position..<min(position + Self.rulesPerInsert, ordered.count)]
                let rows = chunk.enumerated().map { (i, r) -> SQLQuery in
                    "(\(key), \(stored(r.id)), \(position + i), \(stored(r.json)), \(publishedAt))"
                }
                all.append("INSERT INTO rules (app_key, id, position, json, published_at) VALUES " + .joined(rows, separator: ", "))
                position += chunk.count
            }
            let etag = StoredRuleSet.etag(ruleJSON: ordered.map(\.json), sampleRate: sampleRate)
            all.append(
                """
                INSERT INTO rule_sets (app_key, sample_rate, etag, published_at) VALUES (\(key), \(sampleRate), \(etag), \(publishedAt))
                ON CONFLICT (app_key) DO UPDATE SET
                    sample_rate = excluded.sample_rate, etag = excluded.etag, published_at = excluded.published_at
                """)
        }
        return all
    }

    /// A store's rule sets (`CollectorStore.ruleSets`): the sets of `appKey` (every app when nil)
    /// by app key, and their rules in order. Each store reads both in one snapshot.
    public static func ruleSetsQueries(appKey: String?) -> (sets: SQLQuery, rules: SQLQuery) {
        let filter: SQLQuery = .where(appKey.map { ["app_key = \($0)"] } ?? [])
        return (
            "SELECT app_key, sample_rate, etag, published_at FROM rule_sets\(filter) ORDER BY app_key",
            "SELECT app_key, id, json, published_at FROM rules\(filter) ORDER BY app_key, position"
        )
    }

    /// A row of `ruleSetsQueries().rules`.
    public static func rule(_ r: some SQLRow) throws(SQLDecodingError) -> StoredRule {
        StoredRule(
            appKey: try r.decode("app_key"), id: try r.decode("id"), json: try r.decode("json"), publishedAt: try r.decode("published_at"))
    }

    /// A row of `ruleSetsQueries().sets`, without its rules yet (`ruleSets(_:rules:)`).
    public static func ruleSet(_ s: some SQLRow) throws(SQLDecodingError) -> StoredRuleSet {
        StoredRuleSet(
            appKey: try s.decode("app_key"), sampleRate: try s.decode("sample_rate"), etag: try s.decode("etag"), rules: [],
            publishedAt: try s.decode("published_at"))
    }

    /// The sets, each with its rules (`rules` in the order read).
    public static func ruleSets(_ sets: [StoredRuleSet], rules: [StoredRule]) -> [StoredRuleSet] {
        var byApp: [String: [StoredRule]] = [:]
        for r in rules { byApp[r.appKey, default: []].append(r) }
        return sets.map { s in
            var s = s
            s.rules = byApp[s.appKey] ?? []
            return s
        }
    }
}
