import EventModel
import EventStore

/// What `alert` found: the rules whose `kvc_error` events in a window reached a threshold.
/// A rule is one app's rule id; its count adds up every app version's.
struct KVCErrorAlert {
    /// One rule at or over the threshold.
    struct Rule {
        var appKey: String
        var rule: String
        var count: Int
        /// Each version's count, most errors first (ties by version).
        var versions: [(version: String, count: Int)]
        var keyPaths: [String]
        var missingKeys: [String]
    }

    var threshold: Int
    var withinMilliseconds: Int64
    /// The window: corrected times at or after `since`; `now` is when the command looked.
    var since: Int64
    var now: Int64
    var filter: EventFilter
    /// Most errors first, then by app and rule.
    var rules: [Rule]

    /// Groups the store's per-version counts (`kvcErrorCounts`) by app and rule and keeps the
    /// rules whose total is at least `threshold`.
    init(counts: [KVCErrorCount], threshold: Int, withinMilliseconds: Int64, since: Int64, now: Int64, filter: EventFilter) {
        self.threshold = threshold
        self.withinMilliseconds = withinMilliseconds
        self.since = since
        self.now = now
        self.filter = filter
        var byRule: [String: [String: Rule]] = [:]
        for c in counts {
            var r = byRule[c.appKey]?[c.rule] ?? Rule(appKey: c.appKey, rule: c.rule, count: 0, versions: [], keyPaths: [], missingKeys: [])
            r.count += c.count
            r.versions.append((c.appVersion, c.count))
            r.keyPaths = Array(Set(r.keyPaths + c.keyPaths)).sorted()
            r.missingKeys = Array(Set(r.missingKeys + c.missingKeys)).sorted()
            byRule[c.appKey, default: [:]][c.rule] = r
        }
        rules = byRule.values.flatMap(\.values).filter { $0.count >= threshold }.map { r in
            var r = r
            r.versions.sort { ($1.count, $0.version) < ($0.count, $1.version) }
            return r
        }.sorted { ($1.count, $0.appKey, $0.rule) < ($0.count, $1.appKey, $1.rule) }
    }

    /// The document `--format json` prints and `--exec` reads (docs/collector.md).
    var json: JSONValue {
        func strings(_ s: [String]) -> JSONValue { .array(s.map(JSONValue.string)) }
        return [
            "kvcErrors": .int(Int64(threshold)),
            "withinMs": .int(withinMilliseconds),
            "since": .int(since),
            "now": .int(now),
            "app": filter.appKey.map(JSONValue.string) ?? .null,
            "version": filter.appVersion.map(JSONValue.string) ?? .null,
            "rules": .array(
                rules.map { r in
                    [
                        "app": .string(r.appKey), "rule": .string(r.rule), "count": .int(Int64(r.count)),
                        "versions": .array(r.versions.map { ["version": .string($0.version), "count": .int(Int64($0.count))] }),
                        "keyPaths": strings(r.keyPaths), "missingKeys": strings(r.missingKeys),
                    ]
                }),
        ]
    }

    /// One line per rule over the threshold, e.g.
    /// `shop fav-product: 4 kvc errors (versions 1.2.0: 3, 1.3.0: 1), key path product.id, missing key id`.
    func lines(within: String) -> [String] {
        guard !rules.isEmpty else { return ["no rule reached \(threshold) kvc errors in the last \(within)"] }
        return rules.map { r in
            let versions = r.versions.map { "\($0.version): \($0.count)" }.joined(separator: ", ")
            func list(_ s: [String]) -> String { s.isEmpty ? "(none)" : s.joined(separator: ", ") }
            return "\(r.appKey) \(r.rule): \(r.count) kvc error\(r.count == 1 ? "" : "s") (version\(r.versions.count == 1 ? "" : "s") \(versions)), "
                + "key path \(list(r.keyPaths)), missing key \(list(r.missingKeys))"
        }
    }
}
