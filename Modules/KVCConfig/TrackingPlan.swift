public import ViewIdentity

/// Page and control event ids configured for one class (docs/config.md §1).
public struct ClassEvents: Sendable, Hashable {
    public var className: String
    public var pageEnter: String?
    public var pageLeave: String?
    /// Action name (`onFavBtnPressed:`) → event id.
    public var controlEvents: [String: String]
    /// Where each entry was read, for error messages and the check; keyed like the fields
    /// (`Enter`, `Leave`, or the action name), and `""` for the class entry itself.
    public var locations: [String: ConfigLocation]

    public init(
        className: String, pageEnter: String? = nil, pageLeave: String? = nil, controlEvents: [String: String] = [:],
        locations: [String: ConfigLocation] = [:]
    ) {
        self.className = className
        self.pageEnter = pageEnter
        self.pageLeave = pageLeave
        self.controlEvents = controlEvents
        self.locations = locations
    }
}

/// A screen given a label (docs/config.md §2).
public struct LabelledScreen: Sendable, Hashable {
    public var className: String
    public var label: String
    public var location: ConfigLocation

    public init(className: String, label: String, location: ConfigLocation) {
        self.className = className
        self.label = label
        self.location = location
    }
}

/// An action given a label (docs/config.md §2).
public struct LabelledEvent: Sendable, Hashable {
    public var className: String
    public var selector: String
    public var label: String
    public var location: ConfigLocation

    public init(className: String, selector: String, label: String, location: ConfigLocation) {
        self.className = className
        self.selector = selector
        self.label = label
        self.location = location
    }
}

/// A KVC rule: which business value to read from which view on which interaction (docs/config.md §3).
/// A rule without a key path (a studio definition, docs/config.md §3) reads nothing: it names the
/// events it matches (`props.rules`).
public struct KVCRule: Sendable, Hashable {
    public var id: String
    /// The display name (a studio definition's); nil when not given.
    public var name: String?
    public var appKey: String
    public var appVersion: VersionRange
    public var viewEvent: ViewEvent
    public var viewPath: PathPattern
    /// More elements the rule selects besides `viewPath` (a studio definition that survived a
    /// release, or two buttons that mean the same): an event is the rule's when any of its patterns
    /// matches, counted once. The back end counts them all (docs/studio.md); the tracker reads the
    /// key path and names the rule on `viewPath`'s events only.
    public var alsoViewPaths: [PathPattern]
    /// `viewPath` first, then `alsoViewPaths`.
    public var viewPaths: [PathPattern] { [viewPath] + alsoViewPaths }
    /// What to read; nil exactly when `keyName` is nil (a rule that reads nothing).
    public var keyPath: KVCKeyPath?
    /// The property name the value is reported under; nil exactly when `keyPath` is nil.
    public var keyName: String?
    /// Matches only where the view's title equals it.
    public var content: String?
    /// Whether the key path may read text the user typed (docs/privacy.md); false: such a read is
    /// refused (a `kvc_error`). A password entry's text is never read.
    public var readText: Bool
    public var location: ConfigLocation

    /// `keyPath` and `keyName` are both given or both nil (the reader reports one without the other).
    public init(
        id: String, name: String? = nil, appKey: String, appVersion: VersionRange, viewEvent: ViewEvent, viewPath: PathPattern,
        alsoViewPaths: [PathPattern] = [], keyPath: KVCKeyPath?, keyName: String?, content: String? = nil, readText: Bool = false,
        location: ConfigLocation = ConfigLocation(file: "", keyPath: "")
    ) {
        precondition((keyPath == nil) == (keyName == nil), "a rule has both keyPath and keyName, or neither")
        self.id = id
        self.name = name
        self.appKey = appKey
        self.appVersion = appVersion
        self.viewEvent = viewEvent
        self.viewPath = viewPath
        self.alsoViewPaths = alsoViewPaths
        self.keyPath = keyPath
        self.keyName = keyName
        self.content = content
        self.readText = readText
        self.location = location
    }
}

/// Everything there is to track, merged from any number of configuration documents.
public struct TrackingPlan: Sendable, Hashable {
    /// Class name → its page and control event ids.
    public var eventTable: [String: ClassEvents]
    public var screens: [LabelledScreen]
    public var events: [LabelledEvent]
    /// In load order; rule order is match order.
    public var rules: [KVCRule]
    /// Views silenced with everything inside them (a rules document's `"ignore"`, docs/privacy.md).
    public var ignore: [IgnorePattern]

    public init(
        eventTable: [String: ClassEvents] = [:], screens: [LabelledScreen] = [], events: [LabelledEvent] = [],
        rules: [KVCRule] = [], ignore: [IgnorePattern] = []
    ) {
        self.eventTable = eventTable
        self.screens = screens
        self.events = events
        self.rules = rules
        self.ignore = ignore
    }
}
