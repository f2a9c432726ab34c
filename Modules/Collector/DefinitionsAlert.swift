import Definitions
import EventModel
import EventStore
import KVCConfig
import ViewIdentity

/// What `alert --definitions` found: every published definition (rule) of the apps looked at,
/// with its health in its app's newest version that it covers (`DefinitionHealth`); those broken
/// there are the alert.
struct DefinitionsAlert {
    var filter: EventFilter
    var now: Int64
    /// Every rule looked at, by app then publish order.
    var checked: [DefinitionHealth]

    /// Reads `store`'s rules (`filter.appKey`'s only when given) and checks each against the
    /// stored events and pictures.
    init(store: any CollectorStore, pictures: any SnapshotStore, filter: EventFilter, now: Int64) throws(StoreError) {
        self.filter = filter
        self.now = now
        var checked: [DefinitionHealth] = []
        for stored in try store.rules(appKey: filter.appKey) {
            guard let rule = stored.rule else { continue }  // Never for rules this build stored.
            checked.append(try store.definitionHealth(rule, pictures: pictures))
        }
        self.checked = checked
    }

    var broken: [DefinitionHealth] { checked.filter(\.brokenInNewest) }

    /// The document `--format json` prints and `--exec` reads (docs/collector.md).
    var json: JSONValue {
        [
            "definitions": .int(Int64(checked.count)), "now": .int(now), "app": filter.appKey.map(JSONValue.string) ?? .null,
            "broken": .array(
                broken.map { h in
                    let v = h.newest!
                    return [
                        "app": .string(h.rule.appKey), "rule": .string(h.rule.id), "name": h.rule.name.map(JSONValue.string) ?? .null,
                        "appVersion": .string(v.appVersion), "count": .int(Int64(v.count)),
                        "pageInteractions": .int(Int64(v.pageInteractions)), "inPicture": .bool(v.inPicture),
                        "viewPaths": .array(h.rule.viewPaths.map { .string($0.text) }),
                        "suggestion": v.suggestion.map(JSONValue.string) ?? .null,
                    ]
                }),
        ]
    }

    /// One line per definition broken in its app's newest version, with why and the fix, e.g.
    /// `shop share ("Share") broken in 2.0.0: 0 of 12 clicks on its page, not in the newest picture; suggest P`.
    var lines: [String] {
        guard !broken.isEmpty else {
            return ["no definition is broken in its app's newest version (\(checked.count) checked)"]
        }
        return broken.map { h in
            let v = h.newest!
            var why: [String] = []
            if v.pageInteractions > 0, v.count == 0 { why.append("0 of \(v.pageInteractions) interactions of its kind on its page") }
            if v.picture != nil, !v.inPicture { why.append("no element it selects in the newest picture") }
            let name = h.rule.name.map { " (\"\($0)\")" } ?? ""
            let fix = v.suggestion.map { "; suggest adding \($0) (the studio's Apply, or alsoViewPaths)" } ?? "; no suggestion: circle it again in the studio"
            return "\(h.rule.appKey) \(h.rule.id)\(name) broken in \(v.appVersion): " + why.joined(separator: ", ") + fix
        }
    }
}
