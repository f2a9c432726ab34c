import Analytics
import CommandSupport
import Definitions
public import EventModel
import EventStore
import KVCConfig
public import Studio

/// The studio's insights (docs/studio.md "Insights"): funnels and retention tables by the same
/// code as `funnel` and `retention` (`FunnelCommand.result`, `RetentionCommand.result`, their
/// `--format json`), trends by `definitionTrend`, the count `report --rule` gives per day.
extension CollectorStudioBackend {
    public func insight(_ kind: StudioInsight, body: JSONValue, range: StudioTimeRange) throws(StudioError) -> JSONValue {
        switch kind {
        case .trend: return try trend(body, range: range)
        case .funnel: return try funnel(body, range: range)
        case .retention: return try retention(body, range: range)
        }
    }

    /// A step as the page names it: `TYPE:NAME` (`rule:ID` included) as `--step` reads it, or a
    /// definition's id alone.
    static func kind(_ value: JSONValue?, field: String) throws(StudioError) -> EventKind {
        guard let text = value?.stringValue, !text.isEmpty else {
            throw StudioError(.badRequest, "\(field) must be a definition's id or TYPE:NAME (e.g. page_enter:HomeViewController)")
        }
        guard text.contains(":") else { return .rule(text) }
        do throws(UsageError) {
            return try EventFilterOptions.kind(text, named: field)
        } catch {
            throw StudioError(.badRequest, error.message)
        }
    }

    /// The app the question is about: `app`, else the app of its first definition.
    private func app(of body: JSONValue, kinds: [EventKind]) throws(StudioError) -> String {
        if let app = body["app"]?.stringValue, !app.isEmpty { return app }
        let rules = try unavailable { () throws(StoreError) in try store.rules() }
        for id in kinds.compactMap(\.ruleID) {
            if let owner = rules.first(where: { $0.id == id }) { return owner.appKey }
        }
        throw StudioError(.badRequest, "say which app: \"app\": KEY (no step names a definition)")
    }

    private func actor(_ body: JSONValue, allowed: [ActorKind]) throws(StudioError) -> ActorKind {
        guard let text = body["by"]?.stringValue else { return .user }
        guard let kind = ActorKind(rawValue: text), allowed.contains(kind) else {
            throw StudioError(.badRequest, "by '\(text)' is not one of \(allowed.map(\.rawValue).joined(separator: ", "))")
        }
        return kind
    }

    /// `{"steps":[id or TYPE:NAME...],"within":"1d","by":"user"|"device","app"?}`: `funnel --format json`'s answer.
    func funnel(_ body: JSONValue, range: StudioTimeRange) throws(StudioError) -> JSONValue {
        let texts = body["steps"]?.arrayValue ?? []
        guard (2...64).contains(texts.count) else { throw StudioError(.badRequest, "a funnel needs 2 to 64 steps (got \(texts.count))") }
        var steps: [EventKind] = []
        for t in texts { steps.append(try Self.kind(t, field: "step")) }
        var within: Int64 = 3_600_000
        if let text = body["within"]?.stringValue {
            guard let w = TimeArgument.duration(text), w > 0, w <= EventTime.longestDuration else {
                throw StudioError(.badRequest, "within '\(text)' is not a duration; give e.g. 1h, 30m, 1d")
            }
            within = w
        }
        let definition = FunnelDefinition(steps: steps, withinMilliseconds: within, by: try actor(body, allowed: ActorKind.allCases))
        let filter = EventFilter(appKey: try app(of: body, kinds: steps), since: range.since, until: range.until)
        return try answer { () throws(StoreError) in try FunnelCommand.result(of: definition, filter: filter, in: store).json }
    }

    /// `{"start":id or TYPE:NAME,"return":…,"period":"day"|"week","periods"?,"by"?,"app"?}`: `retention --format json`'s answer.
    func retention(_ body: JSONValue, range: StudioTimeRange) throws(StudioError) -> JSONValue {
        let start = try Self.kind(body["start"], field: "start")
        let returning = try Self.kind(body["return"], field: "return")
        let periodText = body["period"]?.stringValue ?? "day"
        guard let period = RetentionPeriod(rawValue: periodText) else { throw StudioError(.badRequest, "period '\(periodText)' is not day or week") }
        let periods = body["periods"]?.intValue ?? 7
        guard (1...1000).contains(periods) else { throw StudioError(.badRequest, "periods must be 1 to 1000 (got \(periods))") }
        let definition = RetentionDefinition(
            start: start, returning: returning, period: period, periods: Int(periods), by: try actor(body, allowed: [.user, .device]))
        let filter = EventFilter(appKey: try app(of: body, kinds: [start, returning]), since: range.since, until: range.until)
        return try answer { () throws(StoreError) in try RetentionCommand.result(of: definition, filter: filter, in: store).json }
    }

    /// `{"rules":[id...],"interval":"day"|"week","breakdown":null|"appVersion"|KEYNAME}`:
    /// `{"interval":I,"since":MS|null,"until":MS|null,"rules":[{"rule":ID,"name":N,"series":[{"key":K|null,
    /// "total":N,"points":[{"start":"YYYY-MM-DD","count":N}]}]}]}`.
    func trend(_ body: JSONValue, range: StudioTimeRange) throws(StudioError) -> JSONValue {
        let ids = (body["rules"]?.arrayValue ?? []).compactMap(\.stringValue)
        guard (1...20).contains(ids.count) else { throw StudioError(.badRequest, "a trend needs 1 to 20 definitions in \"rules\" (got \(ids.count))") }
        let intervalText = body["interval"]?.stringValue ?? "day"
        guard let interval = RetentionPeriod(rawValue: intervalText) else {
            throw StudioError(.badRequest, "interval '\(intervalText)' is not day or week")
        }
        let breakdown: DefinitionTrend.Breakdown? =
            switch body["breakdown"]?.stringValue {
            case nil: nil
            case "appVersion": .appVersion
            case let key?: .value(keyName: key)
            }
        let rules = try answer { () throws(StoreError) in try store.publishedRules(ids: ids, appKey: body["app"]?.stringValue) }
        var out: [JSONValue] = []
        for id in ids {
            let trend = try answer { () throws(StoreError) in
                try store.definitionTrend(rules[id]!, interval: interval, breakdown: breakdown, since: range.since, until: range.until)
            }
            out.append([
                "rule": .string(id), "name": trend.rule.name.map(JSONValue.string) ?? .null,
                "series": .array(
                    trend.series.map { s in
                        [
                            "key": s.key.map(JSONValue.string) ?? .null, "total": .int(Int64(s.total)),
                            "points": .array(s.points.map { ["start": .string($0.start.description), "count": .int(Int64($0.count))] }),
                        ]
                    }),
            ])
        }
        return [
            "interval": .string(interval.rawValue), "since": range.since.map(JSONValue.int) ?? .null,
            "until": range.until.map(JSONValue.int) ?? .null, "rules": .array(out),
        ]
    }

    /// A store answer; a question the store refuses (an unknown definition) is the page's mistake (400).
    private func answer<T>(_ body: () throws(StoreError) -> T) throws(StudioError) -> T {
        do throws(StoreError) {
            return try body()
        } catch {
            if error.code == .notFound { throw StudioError(.badRequest, error.description) }
            throw StudioError(.unavailable, "the store failed (\(error)); try again")
        }
    }
}
