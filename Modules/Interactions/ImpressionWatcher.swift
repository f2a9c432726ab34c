public import ViewIdentity

/// Turns looks at the screen into `impression` interactions (docs/agent.md "Impressions"): an
/// element an impression rule selects gives one when it has been at least half visible for at
/// least 500 ms, once per element per page visit.
///
/// A toolkit walks what is on screen every so often (GTK: every 100 ms; the UIKit-shaped model:
/// whenever the app calls `HookSystem.checkImpressions(in:)`) and calls `look(at:)` once per walk
/// with each element and its visible fraction. An element is known by its view path (row index
/// included), so a list row that scrolls out and back is the same element; `pageEntered` starts a
/// new visit of a page, after which its elements are reported again. Times come from the hooks'
/// clock, so tests step a `ManualInteractionClock` instead of sleeping. UI thread only.
public final class ImpressionWatcher {
    /// How much of an element must be visible: half of its area.
    public static let minimumFraction = 0.5
    /// For how long, in milliseconds.
    public static let minimumMilliseconds: UInt64 = 500

    public let rules: any ImpressionRules
    public let clock: any InteractionClock
    private let report: (Interaction) -> Void
    /// Elements half visible at the last look and selected, by path: since when (monotonic ns).
    private var visibleSince: [String: UInt64] = [:]
    /// Elements reported in the current visit of each page, by page (the paths' root name).
    private var reported: [String: Set<String>] = [:]
    /// The rules' element names as last read (`rulesChanged()`); empty: nothing is watched.
    public private(set) var elementNames: Set<String> = []
    /// How many impressions this watcher reported.
    public private(set) var impressions = 0

    /// `report` receives each impression, on the UI thread.
    public init(rules: any ImpressionRules, clock: any InteractionClock, report: @escaping (Interaction) -> Void) {
        self.rules = rules
        self.clock = clock
        self.report = report
    }

    /// One element on screen during a look, and the share of its area that is visible (inside its
    /// window and every scrolling ancestor's visible area).
    public struct Sighting {
        public var node: any ViewNode
        public var fraction: Double

        public init(node: any ViewNode, fraction: Double) {
            self.node = node
            self.fraction = fraction
        }
    }

    /// One look at everything on screen: elements seen at least half visible start (or keep) their
    /// timer and are reported once it reaches 500 ms; every other element's timer stops.
    public func look(at sightings: some Sequence<Sighting>) {
        let now = clock.monotonicNanoseconds()
        var seen: [String: UInt64] = [:]
        for s in sightings where s.fraction >= ImpressionWatcher.minimumFraction && elementNames.contains(s.node.pathName) {
            let path = ViewPath(of: s.node)
            let key = path.canonical
            let page = path.elements.first?.name ?? ""
            guard reported[page]?.contains(key) != true, seen[key] == nil, rules.selectsImpression(s.node, path: path)
            else { continue }
            let since = visibleSince[key] ?? now
            if (now &- since) / 1_000_000 >= ImpressionWatcher.minimumMilliseconds {
                reported[page, default: []].insert(key)
                impressions += 1
                report(ImpressionWatcher.interaction(s.node, timestamp: clock.wallMilliseconds()))
            } else {
                seen[key] = since
            }
        }
        visibleSince = seen
    }

    /// Reads the rules' element names again (after they changed); returns whether any rule applies.
    @discardableResult
    public func rulesChanged() -> Bool {
        elementNames = rules.impressionElementNames
        if elementNames.isEmpty { visibleSince = [:] }
        return !elementNames.isEmpty
    }

    /// A page was entered: a new visit, whose elements are reported again.
    public func pageEntered(_ page: any ViewNode) {
        reported[page.pathName] = nil
    }

    /// Whether an element is waiting for its 500 ms (for the toolkits' tests and the timer's pace).
    public var isTiming: Bool { !visibleSince.isEmpty }

    /// The impression of `node`: named `Page#Element#impression` by its page's code controller
    /// and its path name, with its title and row.
    static func interaction(_ node: any ViewNode, timestamp: Int64) -> Interaction {
        let place = ViewPlacement(of: node)
        return Interaction(
            kind: .impression, node: node,
            eventCode: EventCode(controller: place.codeController, target: node.pathName, action: "impression"),
            title: node.title, indexPath: place.cell?.cellIndexPath, page: place.page ?? place.codeController,
            timestamp: timestamp)
    }
}
