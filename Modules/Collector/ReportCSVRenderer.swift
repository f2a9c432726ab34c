import Analytics
import EventStore
import KVCConfig

/// The report as one RFC 4180 table in long form, one row per figure, for spreadsheets.
///
/// Columns: `section,app,subject,detail,count,mean_ms`; docs/reports.md says what each
/// section puts in `subject` and `detail`.
public struct ReportCSVRenderer: ReportRenderer {
    public init() {}

    public static let header = ["section", "app", "subject", "detail", "count", "mean_ms"]

    public func render(_ r: CollectorReport) -> String {
        var rows: [[String]] = [Self.header]
        if let rule = r.scope { rows.append(["scope", rule.appKey, rule.id, rule.name ?? "", "", ""]) }
        let t = r.totals
        for (name, value) in [
            ("events", t.events), ("rejected", t.rejected), ("duplicates", t.duplicates), ("batches", t.batches),
            ("apps", t.apps),
        ] {
            rows.append(["total", "", name, "", String(value), ""])
        }
        for e in r.eventTypes { rows.append(["event_type", "", e.type, "", String(e.count), ""]) }
        for e in r.events { rows.append(["event", "", e.name, e.type, String(e.count), ""]) }
        for p in r.pages {
            rows.append(["page", "", p.page, "enter", String(p.enters), ""])
            let mean = p.meanDwellMilliseconds.map { ReportNumber.milliseconds($0) } ?? ""
            rows.append(["page", "", p.page, "leave", String(p.leaves), mean])
        }
        for coverage in r.rules {
            rows.append(["rule", coverage.rule.appKey, coverage.rule.id, coverage.rule.keyName ?? "", String(coverage.covered), ""])
            for v in coverage.values { rows.append(["rule_value", coverage.rule.appKey, coverage.rule.id, v.value, String(v.count), ""]) }
        }
        for i in r.impressions {
            rows.append(["impressions", i.rule.appKey, i.rule.id, "", String(i.impressions), ""])
            rows.append(["impression_clicks", i.rule.appKey, i.rule.id, i.clickRules.joined(separator: " "), String(i.clicks), ""])
        }
        for k in r.kvcErrors { rows.append(["kvc_error", k.appKey, k.rule, k.appVersion, String(k.count), ""]) }
        for x in r.rejected { rows.append(["rejected", "", x.reason, "", String(x.count), ""]) }
        let a = r.activity
        for d in a.days {
            for (what, n) in [("events", d.events), ("actors", d.actors), ("devices", d.devices), ("sessions", d.sessions)] {
                rows.append(["day", "", d.day.description, what, String(n), ""])
            }
        }
        for p in a.dwell {
            rows.append(["dwell_p50", "", p.page, "", String(p.leaves), String(p.p50)])
            rows.append(["dwell_p90", "", p.page, "", String(p.leaves), String(p.p90)])
        }
        for n in a.nextPages { rows.append(["next_page", "", n.page, n.next, String(n.count), ""]) }
        for x in a.rageClicks { rows.append(["rage_clicks", "", x.view, x.page ?? "", String(x.bursts), ""]) }
        if let f = r.funnel {
            for s in f.steps { rows.append(["funnel", "", s.step.description, Percent.text(s.conversion), String(s.actors), ""]) }
        }
        if let t = r.retention {
            for c in t.cohorts {
                rows.append(["retention_cohort", "", c.cohort.description, "", String(c.actors), ""])
                for (i, n) in c.returned.enumerated() {
                    rows.append(["retention", "", c.cohort.description, "\(t.definition.period.rawValue) \(i)", String(n), ""])
                }
            }
        }
        // The text columns hold what clients sent (names, paths, values): neutralized. The numeric
        // columns are the report's own numbers, left as numbers.
        let textColumns = 4
        return rows.map { row in
            row.enumerated().map { i, cell in Self.field(i < textColumns ? Self.neutralized(cell) : cell) }
                .joined(separator: ",")
        }.joined(separator: "\r\n") + "\r\n"
    }

    /// A cell a spreadsheet would run as a formula (it starts with `=`, `+`, `-`, `@`, tab or CR)
    /// gets a leading `'`, as OWASP's CSV injection guidance recommends; others are unchanged.
    static func neutralized(_ s: String) -> String {
        guard let first = s.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) else { return s }
        return "'" + s
    }

    /// Quotes a field that holds a comma, quote, CR or LF, doubling its quotes (RFC 4180 §2).
    static func field(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return s }
        var quoted = "\""
        for ch in s {
            if ch == "\"" { quoted += "\"\"" } else { quoted.append(ch) }
        }
        return quoted + "\""
    }
}
