import EventModel
public import EventStore

/// How far down people get on one page (a scrollmap): of the page's visits, how many scrolled,
/// and how many reached each quarter of a scrolling view's content (docs/studio.md "Scroll depth").
public struct ScrollDepth: Sendable, Hashable {
    /// The visits that reached one share of the content.
    public struct Reached: Sendable, Hashable {
        public var share: Double
        public var visits: Int

        public init(share: Double, visits: Int) {
            self.share = share
            self.visits = visits
        }
    }

    /// Visits of the page: its `page_enter`s, plus visits begun before the range that scrolled in it.
    public var visits: Int
    /// Visits with at least one `scroll` on the page.
    public var scrolled: Int
    /// For 0.25, 0.5, 0.75 and 1, the visits whose largest `props.depth` reached that share.
    public var reached: [Reached]

    public static let shares: [Double] = [0.25, 0.5, 0.75, 1]

    public init(visits: Int, scrolled: Int, reached: [Reached]) {
        self.visits = visits
        self.scrolled = scrolled
        self.reached = reached
    }
}

extension ReportStore {
    /// The scroll depth of page `page` of app `appKey` (only version `appVersion`'s events when
    /// given) over the events with a corrected time in [`since`, `until`): a visit is a
    /// `page_enter` of the page in one session (device, when no session) up to the next one there;
    /// its depth is the largest `props.depth` of the `scroll` events on the page in it (every
    /// scrolling view of the page counts). A `scroll` before any `page_enter` of its session in
    /// the range begins a visit of its own.
    public func scrollDepth(appKey: String, appVersion: String? = nil, page: String, since: Int64? = nil, until: Int64? = nil)
        throws(StoreError) -> ScrollDepth
    {
        let filter = EventFilter(appKey: appKey, appVersion: appVersion, since: since, until: until)
        // The open visit of each session: its largest depth so far (nil: not scrolled yet).
        var open: [String: Double?] = [:]
        var visits = 0
        var depths: [Double] = []
        func close(_ who: String) {
            if let visit = open[who], let depth = visit { depths.append(depth) }
        }
        try events(EventQuery(filter: filter, types: ["page_enter", "scroll"])) { stored in
            let e = stored.event
            guard e.page == page else { return true }
            let who = e.session ?? e.device ?? ""
            if e.type == .pageEnter {
                close(who)
                open[who] = .some(nil)
                visits += 1
            } else if let depth = e.props["depth"]?.doubleValue {
                if open[who] == nil {
                    open[who] = .some(nil)
                    visits += 1
                }
                let soFar = open[who].flatMap { $0 } ?? 0
                open[who] = .some(max(soFar, min(1, max(0, depth))))
            }
            return true
        }
        for who in open.keys { close(who) }
        return ScrollDepth(
            visits: visits, scrolled: depths.count,
            reached: ScrollDepth.shares.map { share in ScrollDepth.Reached(share: share, visits: depths.filter { $0 >= share }.count) })
    }
}
