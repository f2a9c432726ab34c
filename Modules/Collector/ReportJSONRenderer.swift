import Analytics
public import EventModel
import EventStore
import KVCConfig

/// The report as one JSON object, for scripts: exact counts, keys in a fixed order.
public struct ReportJSONRenderer: ReportRenderer {
    public init() {}

    public func render(_ r: CollectorReport) -> String {
        json(r).jsonText + "\n"
    }

    /// The report's JSON value (documented in docs/reports.md).
    public func json(_ r: CollectorReport) -> JSONValue {
        func int(_ v: Int) -> JSONValue { .int(Int64(v)) }
        let t = r.totals
        let totals: JSONValue = [
            "events": int(t.events), "rejected": int(t.rejected), "duplicates": int(t.duplicates),
            "batches": int(t.batches), "apps": int(t.apps),
        ]
        let base: JSONValue = [
            "database": .string(r.database),
            "filter": r.filter.json,
            "rule": r.scope.map { .string($0.id) } ?? .null,
            "generatedAt": .int(r.generatedAt),
            "totals": totals,
            "eventTypes": .array(r.eventTypes.map { ["type": .string($0.type), "count": int($0.count)] }),
            "events": .array(r.events.map { ["type": .string($0.type), "name": .string($0.name), "count": int($0.count)] }),
            "pages": .array(
                r.pages.map {
                    [
                        "page": .string($0.page), "enters": int($0.enters), "leaves": int($0.leaves),
                        "meanDwellMs": $0.meanDwellMilliseconds.map(JSONValue.double) ?? .null,
                    ]
                }),
            "rules": .array(
                r.rules.map { coverage in
                    // The rule as its codec writes it (docs/config.md §3), then what it covered.
                    var o = coverage.rule.json.objectValue ?? JSONObject()
                    o["covered"] = int(coverage.covered)
                    o["values"] = .array(coverage.values.map { ["value": .string($0.value), "count": int($0.count)] })
                    return JSONValue.object(o)
                }),
            "impressions": .array(
                r.impressions.map {
                    [
                        "appKey": .string($0.rule.appKey), "rule": .string($0.rule.id), "impressions": int($0.impressions),
                        "clickRules": .array($0.clickRules.map(JSONValue.string)), "clicks": int($0.clicks),
                        "clickThroughRate": $0.clickThroughRate.map(JSONValue.double) ?? .null,
                    ]
                }),
            "kvcErrors": .array(
                r.kvcErrors.map {
                    [
                        "appKey": .string($0.appKey), "rule": .string($0.rule), "appVersion": .string($0.appVersion),
                        "count": int($0.count), "keyPaths": .array($0.keyPaths.map(JSONValue.string)),
                        "missingKeys": .array($0.missingKeys.map(JSONValue.string)),
                    ]
                }),
            "rejected": .array(r.rejected.map { ["reason": .string($0.reason), "count": int($0.count)] }),
        ]
        var o = base.objectValue ?? JSONObject()
        for (key, value) in r.activity.jsonMembers { o[key] = value }
        o["funnel"] = r.funnel?.json ?? .null
        o["retention"] = r.retention?.json ?? .null
        return .object(o)
    }
}
