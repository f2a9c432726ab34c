import TestSupport
import EventModel
import KVCConfig
import Matching
import Testing
import ViewIdentity

@Suite struct MatchCacheTests {
    static let cell = "ListViewController-UITableView-ProductCell-UIButton"

    /// The field's bug: a cell reused for another row is the same object, and a cache keyed on the
    /// object answers with the first row's match. Keyed on the full path, it cannot.
    @Test func reusedCellMovedToAnotherRowIsNotAStaleMatch() throws {
        let plan = TrackingPlan(rules: [
            try rule("row1", path: "\(Self.cell)&0-0-0:1-0", keyPath: "title", keyName: "t"),
            try rule("section1", path: "\(Self.cell)&0-0-1:*-0", keyPath: "title", keyName: "t"),
        ])
        let m = PlanMatcher(plan: plan)
        let cache = MatchCache()
        let row1 = try query("\(Self.cell)&0-0-0:1-0")
        #expect(m.matchingRuleIndexes(row1, cache: cache) == [0])
        #expect(m.matchingRuleIndexes(row1, cache: cache) == [0])
        #expect(cache.statistics.hits == 1)
        // The same cell, scrolled and reused for row 10, then for section 1.
        #expect(m.matchingRuleIndexes(try query("\(Self.cell)&0-0-0:10-0"), cache: cache).isEmpty)
        #expect(m.matchingRuleIndexes(try query("\(Self.cell)&0-0-1:10-0"), cache: cache) == [1])
        #expect(m.matchingRuleIndexes(row1, cache: cache) == [0])
        #expect(cache.statistics == (hits: 1, misses: 4))
        // The same rule on the same path, but a reused cell shows other data: values are read afresh.
        let first = m.match(row1, reader: JSONPropsReader(props: ["title": "Socks"]), cache: cache)
        let second = m.match(row1, reader: JSONPropsReader(props: ["title": "Shoes"]), cache: cache)
        #expect(first.compactMap(\.value) == ["Socks"])
        #expect(second.compactMap(\.value) == ["Shoes"])
    }

    @Test func cacheKeyIncludesTitleEventAndApp() throws {
        let path = "\(Self.cell)&0-0-0:1-0"
        let plan = TrackingPlan(rules: [
            try rule("buy", versions: "<2", path: path, content: "Buy"),
            try rule("tap", event: .viewTap, path: path),
        ])
        let m = PlanMatcher(plan: plan)
        let cache = MatchCache()
        #expect(m.matchingRuleIndexes(try query(path, title: "Buy"), cache: cache) == [0])
        #expect(m.matchingRuleIndexes(try query(path, title: "Fav"), cache: cache).isEmpty)
        #expect(m.matchingRuleIndexes(try query(path, event: .viewTap), cache: cache) == [1])
        #expect(m.matchingRuleIndexes(try query(path, title: "Buy", version: "2.1"), cache: cache).isEmpty)
        #expect(m.matchingRuleIndexes(try query(path, title: "Buy", app: "blog"), cache: cache).isEmpty)
        #expect(cache.statistics.hits == 0)
    }

    /// Random runs of repeated views, views whose one index moved, and fresh views: cached answers
    /// always equal the plain scan's.
    @Test func cachedAnswersAlwaysEqualTheLinearScan() throws {
        var rng = SeededGenerator(seed: 7)
        let names = ["L", "T", "C", "B"]
        func index() -> PathIndex {
            Bool.random(using: &rng)
                ? .cell(CellIndexPath(section: Int.random(in: 0..<2, using: &rng), row: Int.random(in: 0..<4, using: &rng)))
                : .position(Int.random(in: 0..<2, using: &rng))
        }
        var rules: [KVCRule] = []
        for n in 0..<400 {
            let count = Int.random(in: 2...4, using: &rng)
            let idx = (0..<count).map { _ -> String in
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: return "*"
                case 1: return "\(Int.random(in: 0..<2, using: &rng)):*"
                default: return index().description
                }
            }
            let pattern = names.prefix(count).joined(separator: "-") + "&" + idx.joined(separator: "-")
            rules.append(try rule("r\(n)", event: Bool.random(using: &rng) ? .buttonClick : .scroll, path: pattern))
        }
        let m = PlanMatcher(plan: TrackingPlan(rules: rules))
        let scan = LinearScan(rules: rules)
        let cache = MatchCache()
        var last = MatchQuery(viewEvent: .buttonClick, path: ViewPath(elements: [.init(name: "L", index: .position(0))]))
        for _ in 0..<3000 {
            var q = last
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<4: break  // the same view again
            case 4..<8:  // the same view object, moved: one index changes
                let i = Int.random(in: 0..<q.path.elements.count, using: &rng)
                q.path.elements[i].index = index()
            default:
                let count = Int.random(in: 2...4, using: &rng)
                q = MatchQuery(
                    viewEvent: Bool.random(using: &rng) ? .buttonClick : .scroll,
                    path: ViewPath(elements: names.prefix(count).map { .init(name: $0, index: index()) }))
            }
            #expect(m.matchingRuleIndexes(q, cache: cache) == scan.matchingRuleIndexes(q), "\(q.path.canonical)")
            last = q
        }
        let stats = cache.statistics
        #expect(stats.hits > 600 && stats.misses > 600)
    }
}
