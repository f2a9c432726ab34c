import Analytics
import EventStore
import KVCConfig
import ViewIdentity

/// The report as one self-contained HTML file: inline CSS and inline SVG bar charts, no
/// scripts, no external assets, every piece of data HTML-escaped. Opens from disk, offline.
public struct ReportHTMLRenderer: ReportRenderer {
    /// Bars per chart; the rest are counted in a note under it.
    public var chartLimit: Int

    public init(chartLimit: Int = 20) {
        self.chartLimit = chartLimit
    }

    public func render(_ r: CollectorReport) -> String {
        let sections: [String] = [
            header(r), totalsSection(r), activitySections(r), eventsSection(r), pagesSection(r), rulesSection(r),
            impressionsSection(r), kvcErrorsSection(r), rejectedSection(r),
        ]
        let body = sections.joined()
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>Autotrack report</title>
            <style>\(Self.style)\n\(AnalyticsHTML.style)</style>
            </head>
            <body>
            \(body)</body>
            </html>

            """
    }

    /// The title, the database, the rule the report is scoped to, the filters and the time.
    func header(_ r: CollectorReport) -> String {
        var html = "<h1>Autotrack report</h1>\n<p class=\"db\">Database: <code>\(Self.escape(r.database))</code></p>\n"
        if let rule = r.scope {
            html += "<p class=\"db\">Only the events of rule <code>\(Self.escape(rule.id))</code>\(rule.name.map { " (" + Self.escape($0) + ")" } ?? "")</p>\n"
        }
        html += "<p class=\"meta\" id=\"filters\">Filters: \(Self.escape(r.filter.text)) · Generated \(Timestamp.text(r.generatedAt))</p>\n"
        return html
    }

    func totalsSection(_ r: CollectorReport) -> String {
        let t = r.totals
        var html = "<section id=\"totals\"><h2>Totals</h2>\n<div class=\"totals\">"
        for (label, value) in [
            ("events", t.events), ("rejected", t.rejected), ("duplicates dropped", t.duplicates), ("batches", t.batches),
            ("apps", t.apps),
        ] {
            html += "<div class=\"total\"><b>\(value)</b><span>\(label)</span></div>"
        }
        return html + "</div></section>\n"
    }

    func eventsSection(_ r: CollectorReport) -> String {
        "<section id=\"events\"><h2>Events by type</h2>\n"
            + chart(r.eventTypes.map { ($0.type, Double($0.count), String($0.count)) }, label: "Events by type")
            + "<h2>Events by name</h2>\n"
            + chart(r.events.map { ("\($0.name) (\($0.type))", Double($0.count), String($0.count)) }, label: "Events by name")
            + table(["type", "name", "count"], r.events.map { [$0.type, $0.name, String($0.count)] }, numeric: [2])
            + "</section>\n"
    }

    func pagesSection(_ r: CollectorReport) -> String {
        "<section id=\"pages\"><h2>Pages</h2>\n"
            + chart(r.pages.map { ($0.page, Double($0.enters), String($0.enters)) }, label: "Page enters")
            + chart(
                r.pages.compactMap { p in p.meanDwellMilliseconds.map { (p.page, $0, ReportNumber.milliseconds($0) + " ms") } },
                label: "Mean dwell time")
            + table(
                ["page", "enters", "leaves", "mean dwell ms"],
                r.pages.map { [$0.page, String($0.enters), String($0.leaves), ReportNumber.milliseconds($0.meanDwellMilliseconds)] },
                numeric: [1, 2, 3])
            + "</section>\n"
    }

    func rulesSection(_ r: CollectorReport) -> String {
        "<section id=\"rules\"><h2>Rules</h2>\n"
            + chart(r.rules.map { ("\($0.rule.appKey)/\($0.rule.id)", Double($0.covered), String($0.covered)) }, label: "Events covered per rule")
            + table(
                ["app", "rule", "app version", "view event", "view path", "covered", "key name", "values"],
                r.rules.map { coverage in
                    [
                        coverage.rule.appKey, coverage.rule.id, coverage.rule.appVersion.text, coverage.rule.viewEvent.rawValue, coverage.rule.viewPath.text, String(coverage.covered), coverage.rule.keyName ?? "",
                        coverage.values.isEmpty ? "-" : coverage.values.map { "\($0.value) ×\($0.count)" }.joined(separator: ", "),
                    ]
                }, numeric: [5])
            + "</section>\n"
    }

    func impressionsSection(_ r: CollectorReport) -> String {
        "<section id=\"impressions\"><h2>Impressions</h2>\n"
            + table(
                ["app", "rule", "view path", "impressions", "click rules", "clicks", "click-through"],
                r.impressions.map { i in
                    [i.rule.appKey, i.rule.id, i.rule.viewPath.text, String(i.impressions),
                     i.clickRules.isEmpty ? "-" : i.clickRules.joined(separator: ", "), String(i.clicks),
                     i.clickThroughRate.map(Percent.text) ?? "-"]
                }, numeric: [3, 5])
            + "</section>\n"
    }

    func kvcErrorsSection(_ r: CollectorReport) -> String {
        "<section id=\"kvc-errors\"><h2>KVC errors</h2>\n"
            + chart(
                r.kvcErrors.map { ("\($0.rule) @ \($0.appVersion)", Double($0.count), String($0.count)) }, label: "KVC errors")
            + table(
                ["app", "rule", "app version", "count", "key paths", "missing keys"],
                r.kvcErrors.map {
                    [$0.appKey, $0.rule, $0.appVersion, String($0.count), $0.keyPaths.joined(separator: ", "),
                     $0.missingKeys.joined(separator: ", ")]
                }, numeric: [3])
            + "</section>\n"
    }

    func rejectedSection(_ r: CollectorReport) -> String {
        "<section id=\"rejected\"><h2>Rejected events</h2>\n"
            + chart(r.rejected.map { ($0.reason, Double($0.count), String($0.count)) }, label: "Rejected by reason")
            + table(["reason", "count"], r.rejected.map { [$0.reason, String($0.count)] }, numeric: [1])
            + "</section>\n"
    }

    /// A horizontal bar chart: one row per item, bars scaled to the largest value.
    func chart(_ items: [(label: String, value: Double, text: String)], label: String) -> String {
        let heading = "<h3 class=\"chart-title\">\(Self.escape(label))</h3>\n"
        guard !items.isEmpty else { return heading + "<p class=\"none\">(none)</p>\n" }
        let shown = items.prefix(chartLimit)
        let labelWidth = 300.0, barWidth = 360.0, row = 22.0, valueWidth = 90.0
        let width = labelWidth + barWidth + valueWidth
        let height = row * Double(shown.count) + 4
        let largest = max(shown.map(\.value).max() ?? 0, 1e-9)
        var svg = heading + "<svg class=\"chart\" role=\"img\" aria-label=\"\(Self.escape(label))\" width=\"\(Int(width))\" "
            + "height=\"\(Int(height))\" viewBox=\"0 0 \(Int(width)) \(Int(height))\">\n"
        for (i, item) in shown.enumerated() {
            let y = Double(i) * row + 2
            let w = max(item.value / largest * barWidth, item.value > 0 ? 1 : 0)
            let name = Self.truncated(item.label, to: 36)  // 36 upper-case characters at 12px fit the 294px label area
            svg += "<g><title>\(Self.escape(item.label)): \(Self.escape(item.text))</title>"
            svg += "<text x=\"\(Int(labelWidth - 6))\" y=\"\(Self.number(y + 15))\" text-anchor=\"end\">\(Self.escape(name))</text>"
            svg += "<rect x=\"\(Int(labelWidth))\" y=\"\(Self.number(y + 3))\" width=\"\(Self.number(w))\" height=\"16\" rx=\"2\"/>"
            svg += "<text x=\"\(Self.number(labelWidth + w + 6))\" y=\"\(Self.number(y + 15))\">\(Self.escape(item.text))</text></g>\n"
        }
        svg += "</svg>\n"
        if items.count > shown.count {
            svg += "<p class=\"more\">\(items.count - shown.count) more not drawn; the table lists them all.</p>\n"
        }
        return svg
    }

    /// The trend, funnel, retention, dwell, next-page and rage-click sections.
    func activitySections(_ r: CollectorReport) -> String {
        let a = r.activity
        var s = "<section id=\"trend\"><h2>Trend</h2>\n" + AnalyticsHTML.trendChart(a.days)
        s += table(
            ["day", "events", "actors", "devices", "sessions"],
            a.days.map { [$0.day.description, String($0.events), String($0.actors), String($0.devices), String($0.sessions)] },
            numeric: [1, 2, 3, 4])
        s += "</section>\n<section id=\"funnel\"><h2>Funnel</h2>\n"
        if let f = r.funnel {
            s += AnalyticsHTML.funnelBars(f)
            s += table(
                ["#", "step", "actors", "conversion"],
                f.steps.enumerated().map { [String($0 + 1), $1.step.description, String($1.actors), Percent.text($1.conversion)] },
                numeric: [0, 2, 3])
        } else {
            s += "<p class=\"none\">No funnel asked for: give report --step TYPE:NAME at least twice.</p>\n"
        }
        s += "</section>\n<section id=\"retention\"><h2>Retention</h2>\n"
        if let t = r.retention {
            s += AnalyticsHTML.retentionTable(t)
        } else {
            s += "<p class=\"none\">No retention asked for: give report --start TYPE:NAME --return TYPE:NAME.</p>\n"
        }
        s += "</section>\n<section id=\"dwell\"><h2>Dwell time</h2>\n" + AnalyticsHTML.dwellChart(a.dwell, limit: chartLimit)
        s += table(
            ["page", "leaves", "p50 ms", "p90 ms"], a.dwell.map { [$0.page, String($0.leaves), String($0.p50), String($0.p90)] },
            numeric: [1, 2, 3])
        s += "</section>\n<section id=\"next-pages\"><h2>Next page</h2>\n"
        s += chart(
            a.nextPages.map { ("\($0.page) → \($0.next)", Double($0.count), "\($0.count) of \($0.transitions)") },
            label: "Most frequent next page after each page")
        s += table(
            ["page", "next page", "times", "of transitions"],
            a.nextPages.map { [$0.page, $0.next, String($0.count), String($0.transitions)] }, numeric: [2, 3])
        s += "</section>\n<section id=\"rage-clicks\"><h2>Rage clicks</h2>\n"
        s += chart(a.rageClicks.map { ($0.view, Double($0.bursts), String($0.bursts)) }, label: "Rage-click bursts by view")
        s += table(
            ["view", "page", "bursts", "clicks", "actors"],
            a.rageClicks.map { [$0.view, $0.page ?? "-", String($0.bursts), String($0.clicks), String($0.actors)] },
            numeric: [2, 3, 4])
        return s + "</section>\n"
    }

    func table(_ header: [String], _ rows: [[String]], numeric: Set<Int>) -> String {
        guard !rows.isEmpty else { return "" }
        var s = "<table>\n<thead><tr>"
        for (i, h) in header.enumerated() { s += "<th\(numeric.contains(i) ? " class=\"n\"" : "")>\(Self.escape(h))</th>" }
        s += "</tr></thead>\n<tbody>\n"
        for row in rows {
            s += "<tr>"
            for (i, cell) in row.enumerated() { s += "<td\(numeric.contains(i) ? " class=\"n\"" : "")>\(Self.escape(cell))</td>" }
            s += "</tr>\n"
        }
        return s + "</tbody>\n</table>\n"
    }

    /// Escapes the five characters that could end text or an attribute value.
    public static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for ch in s.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }

    static func truncated(_ s: String, to n: Int) -> String {
        s.count <= n ? s : String(s.prefix(n - 1)) + "…"
    }

    static func number(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        return r == r.rounded() ? String(Int(r)) : String(r)
    }

    static let style = """
        body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:1000px;color:#222;padding:0 1em}
        h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.2em;margin-top:1.8em;border-bottom:1px solid #ddd}
        .db{color:#666}.totals{display:flex;gap:1em;flex-wrap:wrap}
        .total{background:#f3f5f8;border-radius:6px;padding:.6em 1em;min-width:7em}
        .total b{display:block;font-size:1.5em}.total span{color:#555}
        table{border-collapse:collapse;margin:.8em 0;width:100%}th,td{text-align:left;padding:3px 8px;border-bottom:1px solid #eee;vertical-align:top}
        th{background:#f7f7f7}.n{text-align:right;font-variant-numeric:tabular-nums}
        svg.chart{display:block;margin:.6em 0;font-size:12px;max-width:100%;height:auto}
        svg.chart rect{fill:#4a7bd0}svg.chart text{fill:#333}
        .none,.more{color:#888}code{background:#f3f3f3;padding:1px 4px;border-radius:3px}
        """
}
