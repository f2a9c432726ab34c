public import Analytics
import EventModel
import EventStore

/// A funnel's or a retention's answer, in each form `AnalyticsFormat` prints.
protocol AnalyticsAnswer {
    /// The `--format json` value (docs/reports.md).
    var json: JSONValue { get }
    /// The `--format table` text.
    var tableText: String { get }
    /// The `--format html` page's title and its chart or table.
    var htmlTitle: String { get }
    var htmlBody: String { get }
}

/// The analytics' results as JSON values and terminal tables (docs/reports.md).
extension FunnelResult: AnalyticsAnswer {
    var htmlTitle: String { "Autotrack funnel" }
    var htmlBody: String { AnalyticsHTML.funnelBars(self) }

    /// `{"by":"user","withinMs":3600000,"steps":[{"step":"TYPE:NAME","actors":N,"conversion":0.42},…]}`.
    var json: JSONValue {
        [
            "by": .string(definition.by.rawValue), "withinMs": .int(definition.withinMilliseconds),
            "steps": .array(
                steps.map { ["step": .string($0.step.description), "actors": .int(Int64($0.actors)), "conversion": .double($0.conversion)] }),
        ]
    }

    var tableText: String {
        "FUNNEL by \(definition.by.rawValue), within \(definition.withinMilliseconds) ms of step 1\n"
            + TextTable(
                header: ["#", "step", "actors", "conversion"],
                rows: steps.enumerated().map { [String($0 + 1), $1.step.description, String($1.actors), Percent.text($1.conversion)] },
                numeric: [0, 2, 3]
            ).text
    }
}

extension RetentionResult: AnalyticsAnswer {
    var htmlTitle: String { "Autotrack retention" }
    var htmlBody: String { AnalyticsHTML.retentionTable(self) }

    /// `{"period":"day","cohorts":[{"cohort":"2026-11-01","actors":N,"returned":[n0,n1,…]}]}`.
    var json: JSONValue {
        [
            "period": .string(definition.period.rawValue),
            "cohorts": .array(
                cohorts.map {
                    [
                        "cohort": .string($0.cohort.description), "actors": .int(Int64($0.actors)),
                        "returned": .array($0.returned.map { .int(Int64($0)) }),
                    ]
                }),
        ]
    }

    var tableText: String {
        let d = definition
        return "RETENTION by \(d.by.rawValue): cohort = \(d.period.rawValue) of first \(d.start), returned = \(d.returning)\n"
            + TextTable(
                header: ["cohort", "actors"] + (0..<d.periods).map { "\(d.period.rawValue) \($0)" },
                rows: cohorts.map { c in
                    [c.cohort.description, String(c.actors)] + c.returned.indices.map { "\(c.returned[$0]) (\(Percent.text(c.rate($0))))" }
                },
                numeric: Set(1..<(d.periods + 2))
            ).text
    }
}

extension ActivitySummary {
    /// The report's JSON members for the activity figures, in order.
    var jsonMembers: [(String, JSONValue)] {
        func int(_ v: Int) -> JSONValue { .int(Int64(v)) }
        return [
            (
                "days",
                .array(
                    days.map {
                        [
                            "day": .string($0.day.description), "events": int($0.events), "actors": int($0.actors),
                            "devices": int($0.devices), "sessions": int($0.sessions),
                        ]
                    })
            ),
            (
                "dwell",
                .array(dwell.map { ["page": .string($0.page), "leaves": int($0.leaves), "p50Ms": .int($0.p50), "p90Ms": .int($0.p90)] })
            ),
            (
                "nextPages",
                .array(
                    nextPages.map {
                        ["page": .string($0.page), "next": .string($0.next), "count": int($0.count), "transitions": int($0.transitions)]
                    })
            ),
            (
                "rageClicks",
                .array(
                    rageClicks.map {
                        [
                            "view": .string($0.view), "page": $0.page.map(JSONValue.string) ?? .null, "bursts": int($0.bursts),
                            "clicks": int($0.clicks), "actors": int($0.actors),
                        ]
                    })
            ),
        ]
    }
}

extension EventFilter {
    /// The filter as JSON: every member, null where it selects all.
    var json: JSONValue {
        [
            "app": appKey.map(JSONValue.string) ?? .null, "version": appVersion.map(JSONValue.string) ?? .null,
            "since": since.map(JSONValue.int) ?? .null, "until": until.map(JSONValue.int) ?? .null,
        ]
    }

    /// `app shop, version 1.2.0, since …, until …`, or `all events`.
    var text: String {
        var parts: [String] = []
        if let appKey { parts.append("app \(appKey)") }
        if let appVersion { parts.append("version \(appVersion)") }
        if let since { parts.append("since \(Timestamp.text(since))") }
        if let until { parts.append("until \(Timestamp.text(until)) (exclusive)") }
        return parts.isEmpty ? "all events" : parts.joined(separator: ", ")
    }
}

/// Ratios as percentages with one decimal.
enum Percent {
    static func text(_ ratio: Double) -> String { ReportNumber.milliseconds(ratio * 100) + "%" }
}

/// Instants as RFC 3339 UTC text, ms precision.
enum Timestamp {
    static func text(_ time: Int64) -> String {
        let day = UTCDay(time: time)
        var rest = time - day.startTime
        let ms = rest % 1000
        rest /= 1000
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : String(v) }
        let fraction = ms == 0 ? "" : "." + String(ms + 1000).dropFirst()
        return "\(day)T\(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60))\(fraction)Z"
    }
}
