/// Turns a computed report into one output format; each format is one file and one type.
public protocol ReportRenderer: Sendable {
    func render(_ report: CollectorReport) -> String
}

/// The formats `report --format` accepts.
public enum ReportFormat: String, Sendable, Hashable, CaseIterable {
    case table, json, csv, html

    /// The renderer for this format.
    public var renderer: any ReportRenderer {
        switch self {
        case .table: return ReportTableRenderer()
        case .json: return ReportJSONRenderer()
        case .csv: return ReportCSVRenderer()
        case .html: return ReportHTMLRenderer()
        }
    }
}

/// Number formatting the text renderers share.
enum ReportNumber {
    /// Milliseconds with one decimal (`1500.0`), `-` when there is no value. A value beyond
    /// 2^53 (a mean over durations stored before they were checked) has no exact tenths: it is
    /// written as a double writes it (`9.223372036854776e+18`), never converted to an integer.
    static func milliseconds(_ v: Double?) -> String {
        guard let v, v.isFinite else { return "-" }
        guard abs(v) < 9_007_199_254_740_992 else { return v.description }
        let tenths = (v * 10).rounded()
        let whole = Int64(tenths / 10)
        let fraction = Int64(abs(tenths.truncatingRemainder(dividingBy: 10)))
        return "\(tenths < 0 && whole == 0 ? "-" : "")\(whole).\(fraction)"
    }
}
