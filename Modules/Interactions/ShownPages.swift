public import ViewIdentity

/// The pages a toolkit's hooks entered and have not left, in the order entered, and how many times
/// each page name was entered: what makes every toolkit's `page_enter` and `page_leave` alike
/// (the page's name and title, its count, the dwell in milliseconds by the monotonic clock).
/// `Place` is what the toolkit keeps of a visit (its widgets, its window); which pages there are,
/// and when they are entered and left, is the toolkit's own. (`PageVisits` does the same by the
/// controller object, for the UIKit model whose controllers live as long as their pages; a GTK or
/// AppKit node is made afresh and is no key.) UI thread only.
public struct ShownPages<Place> {
    public struct Visit {
        public let place: Place
        /// The page's name as entered: a page left later keeps it, whatever its node says then.
        public let name: String
        let enteredNanos: UInt64
    }

    public private(set) var visits: [Visit] = []
    private var counts: [String: Int] = [:]

    public init() {}

    /// Enters the page `node` (named by its `pathName`) kept as `place`; returns its `page_enter`.
    public mutating func enter(_ place: Place, node: any ViewNode, clock: any InteractionClock) -> Interaction {
        let name = node.pathName
        visits.append(Visit(place: place, name: name, enteredNanos: clock.monotonicNanoseconds()))
        counts[name, default: 0] += 1
        return Interaction(
            kind: .pageEnter, node: node, title: node.title, page: name, pageCount: counts[name], timestamp: clock.wallMilliseconds())
    }

    /// Takes out the visits `leaving` selects, in the order entered.
    public mutating func remove(where leaving: (Visit) -> Bool) -> [Visit] {
        let left = visits.filter(leaving)
        if !left.isEmpty { visits.removeAll(where: leaving) }
        return left
    }

    /// The `page_leave` of `visit` (taken out with `remove`), as `node` at `now` (monotonic
    /// nanoseconds): the name it was entered with, its count, its dwell.
    public func leaving(_ visit: Visit, node: any ViewNode, now: UInt64, clock: any InteractionClock) -> Interaction {
        Interaction(
            kind: .pageLeave, node: node, title: node.title, duration: Int64((now &- visit.enteredNanos) / 1_000_000),
            page: visit.name, pageCount: counts[visit.name], timestamp: clock.wallMilliseconds())
    }
}
