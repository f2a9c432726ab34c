import Analytics
import Foundation
import PostgresStore
import EventStore

/// The analytics' HTML pieces (inline SVG, no script): the trend line chart, funnel bars,
/// the retention table shaded by rate, and dwell percentiles. Every chart has a visible title
/// and an accessible name; a label cut to fit keeps its full text in the SVG `<title>`
/// (shown on hover), and the tables beside the charts print it whole.
enum AnalyticsHTML {
    private static func escape(_ s: String) -> String { ReportHTMLRenderer.escape(s) }
    private static func number(_ v: Double) -> String { ReportHTMLRenderer.number(v) }

    /// A chart's title and its SVG opening tag.
    static func svgOpen(_ title: String, width: Int, height: Int) -> String {
        "<h3 class=\"chart-title\">\(escape(title))</h3>\n<svg class=\"chart\" role=\"img\" aria-label=\"\(escape(title))\" "
            + "width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\">\n"
    }

    /// Events, actors, devices and sessions per day as four lines over one time axis.
    static func trendChart(_ days: [DailyActivity]) -> String {
        let title = "Trend per day: events, unique actors, devices and sessions"
        guard !days.isEmpty else { return "<h3 class=\"chart-title\">\(escape(title))</h3>\n<p class=\"none\">(none)</p>\n" }
        let width = 750.0, height = 260.0, left = 60.0, right = 20.0, top = 16.0, bottom = 40.0
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        let largest = Double(max(days.map(\.events).max() ?? 1, 1))
        func x(_ i: Int) -> Double { left + (days.count == 1 ? plotWidth / 2 : plotWidth * Double(i) / Double(days.count - 1)) }
        func y(_ v: Int) -> Double { top + plotHeight - plotHeight * Double(v) / largest }
        var svg = svgOpen(title, width: Int(width), height: Int(height))
        // Axes, the largest value and the first and last day.
        svg += "<line class=\"axis\" x1=\"\(number(left))\" y1=\"\(number(top))\" x2=\"\(number(left))\" y2=\"\(number(top + plotHeight))\"/>"
        svg += "<line class=\"axis\" x1=\"\(number(left))\" y1=\"\(number(top + plotHeight))\" x2=\"\(number(width - right))\" y2=\"\(number(top + plotHeight))\"/>\n"
        svg += "<text x=\"\(number(left - 6))\" y=\"\(number(top + 4))\" text-anchor=\"end\">\(Int(largest))</text>"
        svg += "<text x=\"\(number(left - 6))\" y=\"\(number(top + plotHeight + 4))\" text-anchor=\"end\">0</text>\n"
        svg += "<text x=\"\(number(x(0)))\" y=\"\(number(height - 20))\" text-anchor=\"middle\">\(days[0].day)</text>"
        if days.count > 1 {
            svg += "<text x=\"\(number(x(days.count - 1)))\" y=\"\(number(height - 20))\" text-anchor=\"end\">\(days[days.count - 1].day)</text>"
        }
        svg += "\n"
        let series: [(String, String, KeyPath<DailyActivity, Int>)] = [
            ("events", "s0", \.events), ("actors", "s1", \.actors), ("devices", "s2", \.devices), ("sessions", "s3", \.sessions),
        ]
        for (name, css, key) in series {
            let points = days.indices.map { "\(number(x($0))),\(number(y(days[$0][keyPath: key])))" }.joined(separator: " ")
            svg += "<polyline class=\"line \(css)\" points=\"\(points)\"><title>\(name) per day</title></polyline>\n"
        }
        // One hover target per day with every figure.
        for (i, d) in days.enumerated() {
            svg += "<circle class=\"s0\" cx=\"\(number(x(i)))\" cy=\"\(number(y(d.events)))\" r=\"3\"><title>\(d.day): \(d.events) events, "
                + "\(d.actors) actors, \(d.devices) devices, \(d.sessions) sessions</title></circle>"
        }
        svg += "\n"
        for (i, (name, css, _)) in series.enumerated() {
            let lx = left + Double(i) * 110
            svg += "<rect class=\"\(css) key\" x=\"\(number(lx))\" y=\"\(number(height - 12))\" width=\"14\" height=\"4\"/>"
            svg += "<text x=\"\(number(lx + 18))\" y=\"\(number(height - 7))\">\(name)</text>"
        }
        return svg + "\n</svg>\n"
    }

    /// One bar per step, scaled to step 1, with its actors and conversion from step 1.
    static func funnelBars(_ f: FunnelResult) -> String {
        let title = "Funnel by \(f.definition.by.rawValue): actors reaching each step within \(f.definition.withinMilliseconds) ms"
        let labelWidth = 260.0, barWidth = 380.0, row = 30.0, valueWidth = 150.0
        let width = labelWidth + barWidth + valueWidth
        let height = row * Double(f.steps.count) + 6
        let first = Double(max(f.steps.first?.actors ?? 0, 1))
        var svg = svgOpen(title, width: Int(width), height: Int(height))
        for (i, s) in f.steps.enumerated() {
            let y = Double(i) * row + 3
            let w = max(Double(s.actors) / first * barWidth, s.actors > 0 ? 1 : 0)
            let label = "\(i + 1). \(s.step)"
            let value = "\(s.actors) · \(Percent.text(s.conversion))"
            svg += "<g><title>\(escape(label)): \(s.actors) actors, \(Percent.text(s.conversion)) of step 1</title>"
            svg += "<text x=\"\(Int(labelWidth - 6))\" y=\"\(number(y + 19))\" text-anchor=\"end\">\(escape(ReportHTMLRenderer.truncated(label, to: 32)))</text>"
            svg += "<rect class=\"funnel\" x=\"\(Int(labelWidth))\" y=\"\(number(y + 3))\" width=\"\(number(w))\" height=\"22\" rx=\"2\"/>"
            svg += "<text x=\"\(number(labelWidth + w + 6))\" y=\"\(number(y + 19))\">\(escape(value))</text></g>\n"
        }
        return svg + "</svg>\n"
    }

    /// Cohorts by rows, periods by columns, each cell shaded by its rate.
    static func retentionTable(_ r: RetentionResult) -> String {
        let d = r.definition
        var s = "<h3 class=\"chart-title\">Retention by \(d.by.rawValue): share of each cohort returning (\(escape(d.returning.description))) "
            + "per \(d.period.rawValue) after its first \(escape(d.start.description))</h3>\n"
        guard !r.cohorts.isEmpty else { return s + "<p class=\"none\">(none)</p>\n" }
        s += "<table class=\"retention\">\n<thead><tr><th>cohort</th><th class=\"n\">actors</th>"
        for i in 0..<d.periods { s += "<th class=\"n\">\(d.period.rawValue) \(i)</th>" }
        s += "</tr></thead>\n<tbody>\n"
        for c in r.cohorts {
            s += "<tr><td>\(c.cohort)</td><td class=\"n\">\(c.actors)</td>"
            for i in 0..<d.periods {
                let rate = c.rate(i)
                // Light cells take dark text, dark cells light text.
                let text = rate > 0.55 ? "#fff" : "#222"
                s += "<td class=\"n\" style=\"background:rgba(74,123,208,\(number(max(rate, 0) * 0.9 + 0.05)));color:\(text)\" "
                    + "title=\"\(c.returned[i]) of \(c.actors) (\(Percent.text(rate)))\">\(Percent.text(rate))</td>"
            }
            s += "</tr>\n"
        }
        return s + "</tbody>\n</table>\n"
    }

    /// Two bars per page: p50 and p90 dwell.
    static func dwellChart(_ dwell: [DwellPercentiles], limit: Int) -> String {
        let title = "Dwell time per page: p50 and p90 (ms)"
        guard !dwell.isEmpty else { return "<h3 class=\"chart-title\">\(title)</h3>\n<p class=\"none\">(none)</p>\n" }
        let shown = dwell.prefix(limit)
        let labelWidth = 300.0, barWidth = 360.0, row = 30.0, valueWidth = 120.0
        let width = labelWidth + barWidth + valueWidth
        let height = row * Double(shown.count) + 6
        let largest = Double(max(shown.map(\.p90).max() ?? 1, 1))
        var svg = svgOpen(title, width: Int(width), height: Int(height))
        for (i, p) in shown.enumerated() {
            let y = Double(i) * row + 3
            let w50 = max(Double(p.p50) / largest * barWidth, 0), w90 = max(Double(p.p90) / largest * barWidth, 0)
            svg += "<g><title>\(escape(p.page)): p50 \(p.p50) ms, p90 \(p.p90) ms over \(p.leaves) leaves</title>"
            svg += "<text x=\"\(Int(labelWidth - 6))\" y=\"\(number(y + 18))\" text-anchor=\"end\">\(escape(ReportHTMLRenderer.truncated(p.page, to: 36)))</text>"
            svg += "<rect class=\"p90\" x=\"\(Int(labelWidth))\" y=\"\(number(y + 2))\" width=\"\(number(w90))\" height=\"24\" rx=\"2\"/>"
            svg += "<rect class=\"p50\" x=\"\(Int(labelWidth))\" y=\"\(number(y + 8))\" width=\"\(number(w50))\" height=\"12\" rx=\"2\"/>"
            svg += "<text x=\"\(number(labelWidth + w90 + 6))\" y=\"\(number(y + 18))\">\(p.p50) / \(p.p90)</text></g>\n"
        }
        svg += "</svg>\n"
        if dwell.count > shown.count { svg += "<p class=\"more\">\(dwell.count - shown.count) more not drawn; the table lists them all.</p>\n" }
        return svg
    }

    static let style = """
        h3.chart-title{font-size:1em;margin:1em 0 .2em;color:#333}
        svg.chart line.axis{stroke:#999}
        svg.chart .s0{stroke:#4a7bd0;fill:#4a7bd0}svg.chart .s1{stroke:#d0743c;fill:#d0743c}
        svg.chart .s2{stroke:#3a9a5b;fill:#3a9a5b}svg.chart .s3{stroke:#8a5cc2;fill:#8a5cc2}
        svg.chart polyline.line{fill:none;stroke-width:2}
        svg.chart rect.key{stroke:none}svg.chart rect.funnel{fill:#3a9a5b}svg.chart rect.p90{fill:#b9cdf0}svg.chart rect.p50{fill:#4a7bd0}
        table.retention td{min-width:4em}.meta{color:#555}
        """
}

extension AnalyticsHTML {
    /// A self-contained page around one analytics section, with the filters and generation time.
    static func page(title: String, database: String, filter: EventFilter, body: String) -> String {
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <title>\(escape(title))</title>
            <style>\(ReportHTMLRenderer.style)
            \(style)</style>
            </head>
            <body>
            <h1>\(escape(title))</h1>
            <p class="db">Database: <code>\(escape(DatabaseURI.redacted(database)))</code></p>
            <p class="meta" id="filters">Filters: \(escape(filter.text)) · Generated \(Timestamp.text(now))</p>
            <section>\(body)</section>
            </body>
            </html>

            """
    }
}
