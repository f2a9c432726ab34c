public import Analytics
public import EventModel

/// What the studio needs from the collector's back end: apps and their pictures, circle mode,
/// the published rules, and counting. `Collector` implements it over the store protocols
/// (`CollectorStudioBackend`); tests use an in-memory one.
///
/// Rules travel as their JSON objects (docs/config.md §3): the back end owns the rule codec, so
/// the studio never spells a rule's fields beyond the few it routes by (`id`, `appKey`,
/// `viewPath`, `content`, `keyPath`).
///
/// Every method may block (disk, network): the studio calls them on the HTTP server's worker
/// threads, never on the Swift concurrency pool.
public protocol StudioBackend: Sendable {
    /// Every app that sent events, pictures or has rules, by app key.
    func apps() throws(StudioError) -> [StudioApp]
    /// `appKey`'s pictures (only `appVersion`'s when given), newest first.
    func snapshots(appKey: String, appVersion: String?) throws(StudioError) -> [StudioSnapshotSummary]
    /// One picture with its PNG and tree; nil when there is none with that id.
    func snapshot(id: Int64) throws(StudioError) -> StudioSnapshot?
    /// Turns circle mode on for `appKey` until `until` (ms since the epoch), or off (nil).
    func setCircleMode(appKey: String, until: Int64?) throws(StudioError)
    /// The names people gave `appKey`'s pages, by page (the paths' root).
    func pageNames(appKey: String) throws(StudioError) -> [String: String]
    /// Names `page` of `appKey` `name`, or takes its name away (nil).
    func setPageName(appKey: String, page: String, name: String?) throws(StudioError)

    /// Every app's published rule set, by app key.
    func ruleSets() throws(StudioError) -> [StudioRuleSet]
    /// `rule` as the codec reads it back, the form that would be stored; `badRequest` with the
    /// codec's reasons when it is not a valid rule.
    func checkRule(_ rule: JSONValue) throws(StudioError) -> JSONValue
    /// Publishes `rules` (checked ones) as `appKey`'s whole set, keeping its sampling rate, the
    /// same path as `rules publish`; returns the new etag.
    func replaceRules(appKey: String, with rules: [JSONValue]) throws(StudioError) -> String

    /// What `rule` counts over the stored events in `range`: total, per UTC day, top values.
    func counts(rule: JSONValue, range: StudioTimeRange) throws(StudioError) -> RuleCounts
    /// Stored events of the view events `viewEvents` (`ButtonClick`, …: docs/config.md §3) per
    /// exact path among `paths`, for `appKey` (only `appVersion`'s when given) in `range`; paths
    /// without any may be left out.
    func heatmap(appKey: String, appVersion: String?, viewEvents: [String], paths: [String], range: StudioTimeRange)
        throws(StudioError) -> [String: Int]
    /// How far down people get on `page` of `appKey` (only `appVersion`'s when given) in `range`:
    /// its visits, those that scrolled, and those that reached each quarter (docs/studio.md "Scroll depth").
    func scrollDepth(appKey: String, appVersion: String?, page: String, range: StudioTimeRange) throws(StudioError) -> ScrollDepth
    /// `rule`'s health per app version over every stored event and picture of its app (`RuleHealth`).
    func health(rule: JSONValue) throws(StudioError) -> RuleHealth
    /// `POST /api/insights/{kind}` (`trend`, `funnel`, `retention`; docs/studio.md "Insights"):
    /// `body` as the page sent it, `range` its `since`/`until`; the answer is what the command
    /// line prints for the same question (`funnel --format json`, `retention --format json`),
    /// computed by the same code. `badRequest` for a question that is not one.
    func insight(_ kind: StudioInsight, body: JSONValue, range: StudioTimeRange) throws(StudioError) -> JSONValue
}

/// The insights the studio draws.
public enum StudioInsight: String, Sendable, CaseIterable {
    case trend, funnel, retention
}

extension StudioBackend {
    /// A back end that does not count scroll depth says so (503).
    public func scrollDepth(appKey: String, appVersion: String?, page: String, range: StudioTimeRange) throws(StudioError)
        -> ScrollDepth
    {
        throw StudioError(.unavailable, "this back end does not count scroll depth")
    }

    /// A back end without analytics says so (503).
    public func insight(_ kind: StudioInsight, body: JSONValue, range: StudioTimeRange) throws(StudioError) -> JSONValue {
        throw StudioError(.unavailable, "this back end does not compute insights")
    }

    /// A back end that does not check definitions says so (503).
    public func health(rule: JSONValue) throws(StudioError) -> RuleHealth {
        throw StudioError(.unavailable, "this back end does not check definitions' health")
    }
}

/// `[since, until)` in ms since the epoch; nil ends are open.
public struct StudioTimeRange: Sendable, Hashable {
    public var since: Int64?
    public var until: Int64?

    public init(since: Int64? = nil, until: Int64? = nil) {
        self.since = since
        self.until = until
    }
}
