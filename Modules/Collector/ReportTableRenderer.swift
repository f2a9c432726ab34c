import Analytics
import EventStore
import KVCConfig

/// Plain-text tables for a terminal: one titled section per part of the report.
public struct ReportTableRenderer: ReportRenderer {
    public init() {}

    public func render(_ r: CollectorReport) -> String {
        var out = "Autotrack report: \(r.database)\n"
        let t = r.totals
        out += "filters: \(r.filter.text)\n"
        if let rule = r.scope { out += "only the events of rule \(rule.id)\(rule.name.map { " (\($0))" } ?? "") of app \(rule.appKey)\n" }
        out += "events \(t.events)  rejected \(t.rejected)  duplicates dropped \(t.duplicates)  batches \(t.batches)  apps \(t.apps)\n"
        let a = r.activity
        out += section(
            "TREND PER DAY", ["day", "events", "actors", "devices", "sessions"],
            a.days.map { [$0.day.description, String($0.events), String($0.actors), String($0.devices), String($0.sessions)] },
            numeric: [1, 2, 3, 4])
        if let f = r.funnel { out += "\n" + f.tableText }
        if let t = r.retention { out += "\n" + t.tableText }
        out += section("EVENTS BY TYPE", ["type", "count"], r.eventTypes.map { [$0.type, String($0.count)] }, numeric: [1])
        out += section("EVENTS BY NAME", ["type", "name", "count"], r.events.map { [$0.type, $0.name, String($0.count)] }, numeric: [2])
        out += section(
            "PAGES", ["page", "enters", "leaves", "mean dwell ms"],
            r.pages.map { [$0.page, String($0.enters), String($0.leaves), ReportNumber.milliseconds($0.meanDwellMilliseconds)] },
            numeric: [1, 2, 3])
        out += section(
            "RULES", ["app", "rule", "view event", "covered", "key name", "values"],
            r.rules.map { coverage in
                let values = coverage.values.map { "\($0.value) ×\($0.count)" }.joined(separator: ", ")
                return [coverage.rule.appKey, coverage.rule.id, coverage.rule.viewEvent.rawValue, String(coverage.covered), coverage.rule.keyName ?? "-", values.isEmpty ? "-" : values]
            }, numeric: [3])
        out += section(
            "IMPRESSIONS", ["app", "rule", "impressions", "click rules", "clicks", "click-through"],
            r.impressions.map { i in
                [i.rule.appKey, i.rule.id, String(i.impressions), i.clickRules.isEmpty ? "-" : i.clickRules.joined(separator: ", "),
                 String(i.clicks), i.clickThroughRate.map(Percent.text) ?? "-"]
            }, numeric: [2, 4, 5])
        out += section(
            "KVC ERRORS", ["app", "rule", "app version", "count", "key paths", "missing keys"],
            r.kvcErrors.map {
                [$0.appKey, $0.rule, $0.appVersion, String($0.count), $0.keyPaths.joined(separator: ", "),
                 $0.missingKeys.joined(separator: ", ")]
            }, numeric: [3])
        out += section(
            "DWELL PERCENTILES", ["page", "leaves", "p50 ms", "p90 ms"],
            a.dwell.map { [$0.page, String($0.leaves), String($0.p50), String($0.p90)] }, numeric: [1, 2, 3])
        out += section(
            "NEXT PAGE", ["page", "next page", "times", "of transitions"],
            a.nextPages.map { [$0.page, $0.next, String($0.count), String($0.transitions)] }, numeric: [2, 3])
        out += section(
            "RAGE CLICKS", ["view", "page", "bursts", "clicks", "actors"],
            a.rageClicks.map { [$0.view, $0.page ?? "-", String($0.bursts), String($0.clicks), String($0.actors)] },
            numeric: [2, 3, 4])
        out += section("REJECTED", ["reason", "count"], r.rejected.map { [$0.reason, String($0.count)] }, numeric: [1])
        return out
    }

    private func section(_ title: String, _ header: [String], _ rows: [[String]], numeric: Set<Int>) -> String {
        "\n\(title)\n" + TextTable(header: header, rows: rows, numeric: numeric).text
    }
}
