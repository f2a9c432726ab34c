import KVCConfig
import Synchronization
import ViewIdentity

/// The last matched view per view event, as field SDKs keep it, but keyed by the view's FULL path.
///
/// The field caches the view object and its cell's index path; a reused cell that moved, or a
/// view whose siblings shifted, then answers with a stale match. Here an entry is only reused when
/// the whole query is equal: event, title, app, and every path element's name and index (cell
/// index paths included), compared from the innermost element out so a moved cell fails at once.
/// Only which rules matched is cached; values are always read afresh, since a reused cell shows
/// other data. Measured (match-bench), it saves nothing over `PlanMatcher`'s own probe, so it is
/// optional and off by default.
public final class MatchCache: Sendable {
    /// A reference, so a lookup compares the query kept in place: a struct entry read out of its
    /// slot is a copy of the query (its path and strings retained, then released).
    private final class Entry: Sendable {
        let query: MatchQuery
        let positions: [Int32]

        init(query: MatchQuery, positions: [Int32]) {
            self.query = query
            self.positions = positions
        }

        /// Whether `other` is the query kept, its fields read in place.
        func holds(_ other: MatchQuery) -> Bool { MatchCache.same(query, other) }
    }

    private struct State {
        var slots: [Entry?] = Array(repeating: nil, count: ViewEvent.slotCount)
        var hits = 0
        var misses = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// How many lookups were answered from the cache, and how many were not.
    public var statistics: (hits: Int, misses: Int) { state.withLock { ($0.hits, $0.misses) } }

    func lookup(_ query: MatchQuery) -> [Int32]? {
        state.withLock { s in
            if let e = s.slots[query.viewEvent.slot], e.holds(query) {
                s.hits += 1
                return e.positions
            }
            s.misses += 1
            return nil
        }
    }

    func store(_ query: MatchQuery, _ positions: [Int32]) {
        state.withLock { $0.slots[query.viewEvent.slot] = Entry(query: query, positions: positions) }
    }

    /// Equality of queries, cheapest differences first: indexes from the innermost element out, then names.
    @inline(__always)
    static func same(_ a: borrowing MatchQuery, _ b: borrowing MatchQuery) -> Bool {
        guard a.viewEvent == b.viewEvent, a.title == b.title, a.appKey == b.appKey, a.appVersion == b.appVersion else {
            return false
        }
        let x = a.path.elements
        let y = b.path.elements
        guard x.count == y.count else { return false }
        var i = x.count - 1
        while i >= 0 {
            if x[i].index != y[i].index { return false }
            i -= 1
        }
        for j in 0..<x.count where x[j].name != y[j].name { return false }
        return true
    }
}
