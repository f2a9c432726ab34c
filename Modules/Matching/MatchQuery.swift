public import KVCConfig
public import ViewIdentity

/// The app a matcher is built for, as the SDK runs it: one app key at one version.
public struct AppIdentity: Sendable, Hashable, CustomStringConvertible {
    public var key: String
    public var version: AppVersion

    public init(key: String, version: AppVersion) {
        self.key = key
        self.version = version
    }

    public var description: String { "\(key) \(version)" }
}

/// One interaction to match against the KVC rules: what happened, to which view, in which app.
public struct MatchQuery: Sendable, Hashable {
    public var viewEvent: ViewEvent
    public var path: ViewPath
    /// The view's visible text; a rule with `content` matches only where it equals this.
    public var title: String?
    /// nil: rules of every app key match. A matcher built for one app matches nothing for another key.
    public var appKey: String?
    /// nil: every version range holds.
    public var appVersion: AppVersion?

    public init(
        viewEvent: ViewEvent, path: ViewPath, title: String? = nil, appKey: String? = nil, appVersion: AppVersion? = nil
    ) {
        self.viewEvent = viewEvent
        self.path = path
        self.title = title
        self.appKey = appKey
        self.appVersion = appVersion
    }
}

extension ViewEvent {
    /// A small dense number per case, fed to hashes and used as an array slot.
    var slot: Int {
        switch self {
        case .buttonClick: return 0
        case .listItemClick: return 1
        case .viewTap: return 2
        case .valueChanged: return 3
        case .pageEnter: return 4
        case .pageLeave: return 5
        case .scroll: return 6
        case .impression: return 7
        }
    }

    /// How many slots there are.
    static let slotCount = 8
}
