import TestSupport
import KVCConfig
import Matching
import Testing
import ViewIdentity

/// Random plans and events: the index must give exactly what the plain scan gives, in the same order.
@Suite struct EquivalenceTests {
    /// The shape of a random plan: few names make big buckets (deep splits); many names make many buckets.
    struct Shape: Sendable, CustomStringConvertible {
        var names: [String]
        var maxElements: Int
        var events: [ViewEvent]
        var rules: Int
        var queries: Int
        var seed: UInt64

        var description: String { "\(names.count) names, \(rules) rules, seed \(seed)" }
    }

    static let shapes: [Shape] = [
        Shape(names: ["A", "B"], maxElements: 4, events: [.buttonClick, .listItemClick], rules: 1500, queries: 1000, seed: 1),
        Shape(names: ["Home", "UIView", "UITableView", "Cell", "UIButton", "UILabel", "Shop.X", "D(gift)", "Caf\u{E9}", "Cafe\u{301}"],
              maxElements: 6, events: ViewEvent.allCases, rules: 1500, queries: 1000, seed: 2),
        Shape(names: ["A"], maxElements: 3, events: [.scroll], rules: 800, queries: 800, seed: 3),
    ]

    static let appKeys = ["a", "b", "c"]
    static let ranges = ["*", "<1.5", ">=1.5 <2", "2", ">=1.0", "=1.5.0"]
    static let versions = ["1.0", "1.5", "2.0", "3"]
    static let titles: [String?] = [nil, "Buy", "Fav", "Other"]
    static let contents: [String?] = [nil, nil, nil, "Buy", "Fav"]

    struct Generator {
        var rng: SeededGenerator
        let shape: Shape

        mutating func index() -> PathPattern.IndexPattern {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<2: return .any
            case 2..<4: return .anyRow(section: Int.random(in: 0..<3, using: &rng))
            case 4..<7: return .exact(.cell(CellIndexPath(section: Int.random(in: 0..<3, using: &rng), row: Int.random(in: 0..<6, using: &rng))))
            default: return .exact(.position(Int.random(in: 0..<3, using: &rng)))
            }
        }

        mutating func concrete(_ p: PathPattern.IndexPattern) -> PathIndex {
            switch p {
            case .exact(let e): return e
            case .anyRow(let s): return .cell(CellIndexPath(section: s, row: Int.random(in: 0..<6, using: &rng)))
            case .any: return concrete(index())
            }
        }

        mutating func patternText() -> String {
            let count = Int.random(in: 1...shape.maxElements, using: &rng)
            let names = (0..<count).map { _ in shape.names.randomElement(using: &rng)! }
            let indexes = (0..<count).map { _ in index().description }
            return names.joined(separator: "-") + "&" + indexes.joined(separator: "-")
        }

        mutating func rule(_ n: Int) throws -> KVCRule {
            KVCRule(
                id: "r\(n)", appKey: EquivalenceTests.appKeys.randomElement(using: &rng)!,
                appVersion: try VersionRange(EquivalenceTests.ranges.randomElement(using: &rng)!),
                viewEvent: shape.events.randomElement(using: &rng)!, viewPath: try PathPattern(patternText()),
                keyPath: try KVCKeyPath("k"), keyName: "k", content: EquivalenceTests.contents.randomElement(using: &rng)!)
        }

        /// Half the queries aim at a rule (wildcards filled in, sometimes one index changed); half are random.
        mutating func query(_ rules: [KVCRule]) throws -> MatchQuery {
            let path: ViewPath
            var aimed: KVCRule?
            if Bool.random(using: &rng), let r = rules.randomElement(using: &rng) {
                aimed = r
                var els: [ViewPath.Element] = []
                for (name, p) in zip(r.viewPath.names, r.viewPath.indexes) { els.append(.init(name: name, index: concrete(p))) }
                if Bool.random(using: &rng) {
                    let i = Int.random(in: 0..<els.count, using: &rng)
                    els[i].index = concrete(index())
                }
                path = ViewPath(elements: els)
            } else {
                let pattern = try PathPattern(patternText())
                path = ViewPath(elements: zip(pattern.names, pattern.indexes).map { .init(name: $0, index: concrete($1)) })
            }
            // An aimed query mostly keeps its rule's event and title, so that many queries do match.
            var event = shape.events.randomElement(using: &rng)!
            var title = EquivalenceTests.titles.randomElement(using: &rng)!
            if let aimed, Int.random(in: 0..<5, using: &rng) > 0 {
                event = aimed.viewEvent
                if Bool.random(using: &rng) { title = aimed.content }
            }
            return MatchQuery(
                viewEvent: event, path: path, title: title,
                appKey: (EquivalenceTests.appKeys + [nil, nil, "zz"]).randomElement(using: &rng)!,
                appVersion: (EquivalenceTests.versions.map { AppVersion($0) } + [nil]).randomElement(using: &rng)!)
        }
    }

    static func generate(_ shape: Shape) throws -> (rules: [KVCRule], queries: [MatchQuery]) {
        var g = Generator(rng: SeededGenerator(seed: shape.seed), shape: shape)
        let rules = try (0..<shape.rules).map { try g.rule($0) }
        let queries = try (0..<shape.queries).map { _ in try g.query(rules) }
        return (rules, queries)
    }

    @Test(arguments: shapes)
    func generalMatcherAgreesWithLinearScan(_ shape: Shape) throws {
        let (rules, queries) = try Self.generate(shape)
        let matcher = PlanMatcher(plan: TrackingPlan(rules: rules))
        let scan = LinearScan(rules: rules)
        var matched = 0
        for q in queries {
            let expected = scan.matchingRuleIndexes(q)
            let got = matcher.matchingRuleIndexes(q)
            #expect(got == expected, "\(q.viewEvent.rawValue) \(q.path.canonical) title \(q.title ?? "-") app \(q.appKey ?? "-")")
            if got != expected { return }
            matched += expected.count
        }
        // The generator must actually produce matches, or the comparison proves little.
        #expect(matched > queries.count / 10)
    }

    @Test(arguments: shapes)
    func fixedAppMatcherAgreesWithLinearScanForThatApp(_ shape: Shape) throws {
        let (rules, queries) = try Self.generate(shape)
        let scan = LinearScan(rules: rules)
        for (key, v) in [("a", "1.5"), ("c", "2.0")] {
            do {
                let app = AppIdentity(key: key, version: try #require(AppVersion(v)))
                let matcher = PlanMatcher(plan: TrackingPlan(rules: rules), app: app)
                for var q in queries.prefix(300) {
                    q.appKey = nil
                    q.appVersion = nil
                    let got = matcher.matchingRuleIndexes(q)
                    q.appKey = key
                    q.appVersion = app.version
                    #expect(got == scan.matchingRuleIndexes(q), "\(app) \(q.path.canonical)")
                    #expect(got == matcher.matchingRuleIndexes(q))
                }
            }
        }
    }
}
