import EventModel
import ViewIdentity

/// A published KVC rule as a store keeps it: its key columns and its JSON object. The JSON is the
/// rule's one codec (KVCConfig's `KVCRule(json:)` / `KVCRule.json`, docs/config.md §3); a store
/// never spells a rule's other fields.
public struct StoredRule: Sendable, Hashable {
    public var appKey: String
    public var id: String
    /// The rule object as served in `RULES`, compact JSON text.
    public var json: String
    /// Milliseconds since the epoch; 0 before it is stored.
    public var publishedAt: Int64

    public init(appKey: String, id: String, json: String, publishedAt: Int64 = 0) {
        self.appKey = appKey
        self.id = id
        self.json = json
        self.publishedAt = publishedAt
    }
}

/// One app's published rules, its sampling rate and the etag of the whole set, as the last
/// `PUBLISH` for that app left them. Kept in the database, so every collector sharing it serves
/// the same set under the same etag.
public struct StoredRuleSet: Sendable, Hashable {
    public var appKey: String
    /// The share of devices that send events, 0…1 (docs/wire.md `sampleRate`).
    public var sampleRate: Double
    /// `StoredRuleSet.etag(rules:sampleRate:)` of this set, stored at publish time.
    public var etag: String
    /// In publish order.
    public var rules: [StoredRule]
    /// When the set was published, ms since the epoch.
    public var publishedAt: Int64

    public init(appKey: String, sampleRate: Double = 1, etag: String, rules: [StoredRule], publishedAt: Int64) {
        self.appKey = appKey
        self.sampleRate = sampleRate
        self.etag = etag
        self.rules = rules
        self.publishedAt = publishedAt
    }

    /// The etag of a rule list and sampling rate: lowercase hex MD5 of the `RULES` body without
    /// its etag, `{"rules":[...],"sampleRate":R}`, so equal contents have equal etags and any
    /// change (a rule, its order, the rate) changes it. `ruleJSON` are the rules' JSON texts.
    public static func etag(ruleJSON: [String], sampleRate: Double) -> String {
        var md5 = MD5()
        md5.update(utf8: "{\"rules\":[")
        for (i, text) in ruleJSON.enumerated() {
            if i > 0 { md5.update(utf8: ",") }
            md5.update(utf8: text)
        }
        md5.update(utf8: "],\"sampleRate\":")
        md5.update(utf8: JSONValue.double(sampleRate).jsonText)
        md5.update(utf8: "}")
        return md5.hexDigest
    }

    /// The sampling rates `PUBLISH` accepts.
    public static let sampleRates: ClosedRange<Double> = 0...1
}
