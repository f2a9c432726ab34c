public import EventModel
public import KVCConfig
public import Matching
public import ViewIdentity

/// The prop names the tracker writes (docs/agent.md "Event shapes"); the collector's reports read them.
public enum TrackerProps {
    /// On a renamed event: the name it had before the plan gave it a configured event id.
    public static let code = "code"
    /// The configured label of the screen (page enter) or action.
    public static let label = "label"
    /// Comma-joined ids of the KVC rules whose values the event carries.
    public static let rules = "rules"
    /// On `kvc_error` (beside KVCConfig's `KVCErrorRecord` props `ruleId`, `appKey`, `appVersion`,
    /// `keyPath`, `missingKey`): the id of the event whose rule missed.
    public static let event = "event"

    /// Names a KVC rule's `keyName` may not take: the tracker's own props win over them.
    public static let reserved: Set<String> = [code, label, rules]

    /// `reserved.contains(name)`, without hashing the name (asked for every value of every event).
    static func isReserved(_ name: String) -> Bool { name == code || name == label || name == rules }
}

/// The app a tracker runs in: the key events are sent under and the version KVC rules are chosen by.
public struct TrackedApp: Sendable, Hashable {
    public var key: String
    /// As the app reports it, e.g. `1.2.0`; written into `kvc_error` events as given.
    public var version: String
    public var parsedVersion: AppVersion

    /// Fails when `version` is not dot-separated whole numbers, since rules could not be chosen by it.
    public init(key: String, version: String) throws(TrackerError) {
        guard !key.isEmpty else { throw .emptyAppKey }
        guard let v = AppVersion(version) else { throw .badAppVersion(version) }
        self.key = key
        self.version = version
        parsedVersion = v
    }

    var identity: AppIdentity { AppIdentity(key: key, version: parsedVersion) }
}

/// What a tracker refuses: an app it cannot track, or an argument of the SDK calls that breaks
/// the wire contract (docs/wire.md §3).
public struct TrackerError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        case emptyAppKey = "empty-app-key"
        case badAppVersion = "bad-app-version"
        case badUserID = "bad-user-id"
        case badEventName = "bad-event-name"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public static let emptyAppKey = TrackerError(
        .emptyAppKey, "the app key is empty; give the key the collector knows the app by (e.g. --app-key shop)")

    public static func badAppVersion(_ v: String) -> TrackerError {
        TrackerError(
            .badAppVersion,
            "app version \"\(v)\" is not numbers joined by dots (e.g. 1.2.0); KVC rules choose by version, so give one")
    }

    public var description: String { message }
}

/// Applies a tracking plan to one interaction: configured name, label, KVC values and `kvc_error`s.
///
/// Pure apart from reading the live node (KVCConfig's reflection reader), which must happen while the interaction is
/// being handled (a reused cell shows other data a moment later).
///
/// A class of constants: the tracker hands its shaper out of its lock for every interaction, and a
/// reference is one retain where the plan's parts were one each.
public final class EventShaper: Sendable {
    public let matcher: PlanMatcher
    public let app: TrackedApp
    private let cache = MatchCache()

    public init(plan: TrackingPlan, app: TrackedApp) {
        matcher = PlanMatcher(plan: plan, app: app.identity)
        self.app = app
    }

    /// The events for one interaction: first the interaction's own event, then one `kvc_error` per
    /// rule whose key path named nothing. `base` already has its id, ts and session.
    ///
    /// - Parameters:
    ///   - viewEvent: the KVC view event; nil for interactions no rule can name (app lifecycle).
    ///   - className: the target's class for actions, the controller's class for page events.
    ///   - action: the action name for target-action events.
    ///   - nextID: hands out ids for the `kvc_error` events.
    ///   - path: the node's viewPath when the caller already walked it (nil: walked here).
    ///   - title: the node's `title` when the caller already read it (nil: read here).
    public func events(
        base: consuming TrackEvent, node: (any ViewNode)?, viewEvent: ViewEvent?, className: String?, action: String?,
        path: ViewPath? = nil, title: String?? = nil, nextID: () -> String, diagnose: ((RuleDiagnosis) -> Void)? = nil
    ) -> [TrackEvent] {
        guard let viewEvent else { return [base] }
        // Made in place (a query made first and then wrapped is copied: retains of its path and texts).
        let interaction =
            if let node {
                PlanQuery(
                    query: MatchQuery(
                        viewEvent: viewEvent, path: path ?? ViewPath(of: node), title: title ?? node.title, appKey: app.key,
                        appVersion: app.parsedVersion),
                    className: className, action: action)
            } else {
                // A page event without a node still finds its event id and labels, but no KVC rule.
                PlanQuery(
                    query: MatchQuery(viewEvent: viewEvent, path: ViewPath(elements: []), appKey: app.key, appVersion: app.parsedVersion),
                    className: className, action: action)
            }
        let match: PlanMatch
        if let node {
            // The live object: stored properties, KeyValueReadable, superview/parent steps (a JSON
            // tree's node answers from its props).
            match = matcher.match(interaction, reader: ReflectionReader(node: node), cache: cache)
        } else {
            var m = matcher.match(interaction, reader: JSONPropsReader(props: nil), cache: nil)
            m.rules = []
            match = m
        }
        if let diagnose {
            diagnose(RuleDiagnosis(rules: matcher.plan.rules, viewEvent: viewEvent, path: interaction.query.path, matches: match.rules))
        }
        // Moved into the array returned, not copied (an array literal or an insert copies), and
        // shaped there in place: the props are changed on the UI thread of every tracked interaction.
        var events: [TrackEvent] = []
        events.append(consume base)
        let errors = shape(&events[0], match: match, nextID: nextID)
        if !errors.isEmpty { events.append(contentsOf: errors) }
        return events
    }

    /// Names and labels `event` as `match` says, adds the rules' values; returns a `kvc_error` per failed read.
    private func shape(_ event: inout TrackEvent, match: PlanMatch, nextID: () -> String) -> [TrackEvent] {
        if let id = match.eventID {
            event.props[TrackerProps.code] = .string(event.name)
            event.name = id
        }
        if let label = match.labels.first {
            event.props[TrackerProps.label] = .string(label)
        }
        // The ids, comma-joined as they come (most events carry one).
        var ruleIDs = ""
        var ruleCount = 0
        var errors: [TrackEvent] = []
        for m in match.rules {
            switch m.result {
            case .success(let value):
                // A rule without a key name (a studio definition) reads nothing: it names the event.
                if let keyName = m.rule.keyName {
                    guard !TrackerProps.isReserved(keyName) else { continue }
                    event.props[keyName] = value.isScalar ? value : .string(value.jsonText)
                }
                if ruleCount > 0 { ruleIDs.append(",") }
                ruleIDs.append(m.rule.id)
                ruleCount += 1
            case .failure(var record):
                // The version as the app gave it, not as parsed (`1.2` stays `1.2`).
                record.appKey = app.key
                record.appVersion = app.version
                var e = record.event(
                    id: nextID(), ts: event.ts, page: event.page, path: event.path, viewId: event.viewId, session: event.session)
                e.props[TrackerProps.event] = .string(event.id)
                errors.append(e)
            }
        }
        if ruleCount > 0 {
            event.props[TrackerProps.rules] = .string(ruleIDs)
        }
        return errors
    }
}
