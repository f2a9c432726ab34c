public import EventModel

/// One app's published rules as the studio edits them.
public struct StudioRuleSet: Sendable, Hashable {
    public var appKey: String
    /// The set's etag, as `CONFIG` compares it.
    public var etag: String
    /// The rule objects, in publish (match) order.
    public var rules: [JSONValue]

    public init(appKey: String, etag: String, rules: [JSONValue]) {
        self.appKey = appKey
        self.etag = etag
        self.rules = rules
    }
}
