public import EventModel
public import KVCConfig

/// A rule set as the collector serves it (`RULES {"etag":E,"rules":[...],"sampleRate":R}`,
/// docs/wire.md §2), and as the agent keeps the last good one in `rules.json` of its data directory
/// (the same three fields).
public struct RemoteRules: Sendable, Hashable {
    public var etag: String
    /// KVC rules in the shape of docs/config.md §3.
    public var rules: [JSONValue]
    /// The share of devices that report, 0…1; nil when the collector sets none (all report).
    public var sampleRate: Double?

    public init(etag: String, rules: [JSONValue], sampleRate: Double? = nil) {
        self.etag = etag
        self.rules = rules
        self.sampleRate = sampleRate
    }

    public var json: JSONValue {
        var o = JSONObject()
        o["etag"] = .string(etag)
        o["rules"] = .array(rules)
        if let sampleRate { o["sampleRate"] = .double(sampleRate) }
        return .object(o)
    }

    /// Reads the `RULES` body (or the cached file); nil when it lacks `etag` or `rules`.
    public init?(json: JSONValue) {
        guard let etag = json["etag"]?.stringValue, case .array(let rules)? = json["rules"] else { return nil }
        self.etag = etag
        self.rules = rules
        sampleRate = json["sampleRate"]?.doubleValue
    }

    static let fileName = "rules.json"

    /// The rules merged over a local plan (docs/agent.md "Remote configuration"): the local event
    /// table and labels stay; a remote rule replaces the local rule of the same id; remote rules
    /// with new ids follow the local ones. The whole set is refused when any rule is invalid
    /// (the error lists every problem), or when `sampleRate` is outside 0…1.
    public func plan(over local: TrackingPlan) throws(ConfigError) -> TrackingPlan {
        let source = "collector rules (etag \(etag))"
        if let r = sampleRate, !(0...1).contains(r) {
            throw ConfigError(
                ConfigProblem(
                    code: .wrongType, location: ConfigLocation(file: source, keyPath: "sampleRate"),
                    expected: "a number from 0 to 1", found: String(r)))
        }
        let remote = try ConfigLoader.rules(json: .array(rules), file: source)
        let replaced = Set(remote.map(\.id))
        var plan = local
        plan.rules = local.rules.filter { !replaced.contains($0.id) } + remote
        return plan
    }
}

/// What asking the collector for rules gave.
public enum RulesAnswer: Sendable, Hashable {
    /// The client's etag is current (`RULES {"etag":E,"unchanged":true}`).
    case unchanged(etag: String)
    case rules(RemoteRules)
}

/// Where a tracker's remote rules come from: the collector over ATLP (`ATLPRulesSource` in the
/// AgentPipeline module), or a test's fake. Called on the refresher's own thread; may block.
public protocol RulesSource: Sendable {
    /// Asks for the rules of this app, telling the etag of the set in use (nil: none yet).
    func fetch(etag: String?) throws -> RulesAnswer
    /// `fetch`, and whether circle mode is on for this app: someone is circling it in the studio,
    /// so the agent sends snapshots of its pages (the `RULES` answer's `"snapshots":true`).
    /// By default circle mode is off.
    func fetchWithCircleMode(etag: String?) throws -> (answer: RulesAnswer, circleMode: Bool)
}

extension RulesSource {
    public func fetchWithCircleMode(etag: String?) throws -> (answer: RulesAnswer, circleMode: Bool) {
        (try fetch(etag: etag), false)
    }
}
