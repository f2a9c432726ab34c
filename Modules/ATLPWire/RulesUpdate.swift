public import EventModel

/// The collector's `RULES` answer to `CONFIG` (docs/wire.md §2): the rules with their etag (and the
/// app's sampling rate when the collector has one), or only the etag when the client's is current.
/// Both forms carry `"snapshots":true` while circle mode is on for the session's app key.
public enum RulesUpdate: Sendable, Hashable {
    /// `RULES {"etag":E,"rules":[...]}`, with `"sampleRate":R` (0…1) when set.
    case changed(etag: String, rules: [JSONValue], sampleRate: Double?, snapshots: Bool = false)
    /// `RULES {"etag":E,"unchanged":true}`: the rules the client holds (etag `E`) are current.
    case unchanged(etag: String, snapshots: Bool = false)

    /// The etag of the rules now in force.
    public var etag: String {
        switch self {
        case .changed(let etag, _, _, _), .unchanged(let etag, _): return etag
        }
    }

    /// True while circle mode is on: the agent sends snapshots of its pages (docs/studio.md, docs/wire.md §2).
    public var snapshots: Bool {
        switch self {
        case .changed(_, _, _, let on), .unchanged(_, let on): return on
        }
    }

    /// Reads a `RULES` frame; nil when it is not one, lacks `etag`, or has neither
    /// `"unchanged":true` nor a `rules` array (or a `sampleRate` that is not a number).
    /// `snapshots` is true only for `"snapshots":true`.
    public init?(_ frame: ATLPFrame) {
        guard frame.verb == "RULES", let etag = frame["etag"]?.stringValue else { return nil }
        let snapshots = frame["snapshots"] == .bool(true)
        if case .bool(true)? = frame["unchanged"] {
            self = .unchanged(etag: etag, snapshots: snapshots)
            return
        }
        guard let rules = frame["rules"]?.arrayValue else { return nil }
        var sampleRate: Double?
        if let r = frame["sampleRate"] {
            guard let rate = r.doubleValue else { return nil }
            sampleRate = rate
        }
        self = .changed(etag: etag, rules: rules, sampleRate: sampleRate, snapshots: snapshots)
    }

    /// The frame; `"snapshots":true` is written only when on (absent otherwise).
    public var frame: ATLPFrame {
        var body: JSONObject
        switch self {
        case .changed(let etag, let rules, let sampleRate, _):
            body = JSONObject([("etag", .string(etag)), ("rules", .array(rules))])
            if let sampleRate { body["sampleRate"] = .double(sampleRate) }
        case .unchanged(let etag, _):
            body = JSONObject([("etag", .string(etag)), ("unchanged", .bool(true))])
        }
        if snapshots { body["snapshots"] = .bool(true) }
        return ATLPFrame(verb: "RULES", body: body)
    }
}
