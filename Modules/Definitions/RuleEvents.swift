import EventModel
public import EventStore
public import KVCConfig
import ViewIdentity

/// The events a rule selects ("a definition's events", docs/reports.md "Definitions"): the
/// stored interactions of its app whose version its range holds, whose type is its view
/// event's, whose canonical path one of its patterns matches and, when it has `content`, whose
/// `props.title` or collected value (`props[keyName]`) equals it, whenever they were stored
/// (before the rule existed too).
///
/// The one definition every count by rule uses: the report's rule coverage, previews and
/// counts, `funnel --step rule:ID`, `retention`, `export --rule`. Paths are matched as the
/// tracker matches them (`PathPattern.matches`, names by bytes). (Matching's `CircleSelection`
/// is the same pattern as a regular expression, for a store that would filter in SQL.)
public struct RuleEvents: Sendable, Hashable {
    public let rule: KVCRule
    /// The wire type of the rule's view event (`click`, `list_item_click`, ...).
    public let type: String

    public init(_ rule: KVCRule) {
        self.rule = rule
        type = rule.viewEvent.eventType.rawValue
    }

    /// True when the rule's range holds the app version an event's HELLO named.
    public func holds(appVersion: String?) -> Bool { rule.appVersion.holds(versionText: appVersion) }

    /// True when `path` (canonical text) matches one of the rule's patterns (`viewPath`, then
    /// `alsoViewPaths`: an event is selected once however many match); false for text that is no path.
    public func matches(path: String) -> Bool {
        guard let parsed = try? ViewPath(canonical: path) else { return false }
        return rule.viewPaths.contains { $0.matches(parsed) }
    }
}

/// Whether the rule of `events` selects stored events, one at a time: the one place the
/// definition is applied to an event, keeping each distinct path's and version's answer (a scan
/// meets the same few again and again).
public struct RuleEventMatcher {
    public let events: RuleEvents
    private var paths: [String: Bool] = [:]
    private var versions: [String?: Bool] = [:]

    public init(_ events: RuleEvents) { self.events = events }

    public init(_ rule: KVCRule) { self.init(RuleEvents(rule)) }

    /// True when the rule selects `stored` (its title: `props.title` when a string; its value:
    /// `props[keyName]`, a string as it is, anything else as JSON text).
    public mutating func selects(_ stored: StoredEvent) -> Bool {
        let e = stored.event
        let value = events.rule.keyName.flatMap { e.props[$0] }.map { $0.stringValue ?? $0.jsonText }
        return selects(
            appKey: stored.appKey, appVersion: stored.appVersion, type: e.type.rawValue, path: e.path, title: e.props["title"]?.stringValue,
            value: value)
    }

    /// True when the rule selects a stored event with these fields: `title` is its
    /// `props.title`, `value` its `props[keyName]` (nil when not known: only the title is compared).
    public mutating func selects(appKey: String, appVersion: String?, type: String, path: String?, title: String?, value: String? = nil) -> Bool {
        guard type == events.type else { return false }
        return selects(appKey: appKey, appVersion: appVersion, path: path, title: title, value: value)
    }

    /// True when the rule's app, version range and patterns hold an event with these fields (its
    /// content aside).
    private mutating func holds(appKey: String, appVersion: String?, path: String?) -> Bool {
        guard appKey == events.rule.appKey, let path else { return false }
        if let held = versions[appVersion] {
            if !held { return false }
        } else {
            let held = events.holds(appVersion: appVersion)
            versions[appVersion] = held
            if !held { return false }
        }
        if let m = paths[path] { return m }
        let m = events.matches(path: path)
        if paths.count < 100_000 { paths[path] = m }
        return m
    }
}

extension RuleEventMatcher: EventSelector {
    public var type: String { events.type }

    /// The key name whose value the rule's content may equal; nil for a rule without content.
    public var valueKey: String? { events.rule.content == nil ? nil : events.rule.keyName }

    public mutating func selects(appKey: String, appVersion: String?, path: String?, title: String?, value: String?) -> Bool {
        let rule = events.rule
        if let content = rule.content, content != title, rule.keyName == nil || content != value { return false }
        return holds(appKey: appKey, appVersion: appVersion, path: path)
    }

    public mutating func selection(appKey: String, appVersion: String?, path: String?, title: String?) -> EventSelection {
        guard holds(appKey: appKey, appVersion: appVersion, path: path) else { return .none }
        guard let content = events.rule.content, content != title else { return .every }
        return events.rule.keyName == nil ? .none : .byValue
    }
}
