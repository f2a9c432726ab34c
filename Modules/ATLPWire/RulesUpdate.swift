import EventModel

/// The collector's `RULES` answer to `CONFIG` (docs/wire.md §2): the rules with their etag (and the
/// app's sampling rate when the collector has one), or only the etag when the client's is current.
public enum RulesUpdate: Sendable, Hashable {
    /// `RULES {"etag":E,"rules":[...]}`, with `"sampleRate":R` (0…1) when set.
    case changed(etag: String, rules: [JSONValue], sampleRate: Double?)
    /// `RULES {"etag":E,"unchanged":true}`: the rules the client holds (etag `E`) are current.
    case unchanged(etag: String)

    /// The etag of the rules now in force.
    public var etag: String {
        switch self {
        case .changed(let etag, _, _), .unchanged(let etag): return etag
        }
    }

    /// Reads a `RULES` frame; nil when it is not one, lacks `etag`, or has neither
    /// `"unchanged":true` nor a `rules` array (or a `sampleRate` that is not a number).
    public init?(_ frame: ATLPFrame) {
        guard frame.verb == "RULES", let etag = frame["etag"]?.stringValue else { return nil }
        if case .bool(true)? = frame["unchanged"] {
            self = .unchanged(etag: etag)
            return
        }
        guard let rules = frame["rules"]?.arrayValue else { return nil }
        var sampleRate: Double?
        if let r = frame["sampleRate"] {
            guard let rate = r.doubleValue else { return nil }
            sampleRate = rate
        }
        self = .changed(etag: etag, rules: rules, sampleRate: sampleRate)
    }

    /// The frame.
    public var frame: ATLPFrame {
        switch self {
        case .changed(let etag, let rules, let sampleRate):
            var body = JSONObject([("etag", .string(etag)), ("rules", .array(rules))])
            if let sampleRate { body["sampleRate"] = .double(sampleRate) }
            return ATLPFrame(verb: "RULES", body: body)
        case .unchanged(let etag):
            return ATLPFrame(verb: "RULES", body: JSONObject([("etag", .string(etag)), ("unchanged", .bool(true))]))
        }
    }
}
