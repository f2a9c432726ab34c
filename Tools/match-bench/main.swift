// match-bench: the indexed matcher against the plain linear scan the field runs, in one process.
//
//   swift run -c release match-bench            10,000 rules × 1,000,000 events, then 100 … 100,000 rules
//   swift run -c release match-bench --quick    a ~5 s run
//
// The plan looks like a shop app's: many screens, each with a table of cells whose buttons are
// matched with `s:*` / `*`, plain buttons, switches, scroll views and page events; 80% of the rules
// are for the measured app, spread over version ranges. Events come from twice as many screens
// as have rules, so most match nothing and the rest a few rules.
import BenchmarkSupport
import EventModel
import KVCConfig
import Matching
import SystemCalls
import TestSupport
import ViewIdentity

let quick = Benchmark.isQuick
let app = AppIdentity(key: "shop", version: AppVersion("3.2.0")!)
let cellTypes = ["ProductCell", "OrderCell", "ReviewCell", "BannerCell", "AddressCell"]
let titles = ["Buy", "Fav", "Share", "Delete", "More"]

/// The shape of one view an event can happen on, or a rule can name.
enum Spot: CaseIterable {
    case cellButton, cellTap, plainButton, switchChange, tableScroll, page
}

struct Workload {
    var rng: SeededGenerator

    func screen(_ k: Int) -> String { "Screen\(k)ViewController" }

    /// A rule for screen `k`.
    mutating func rule(_ n: Int, screen k: Int) -> KVCRule {
        let s = screen(k)
        let cell = cellTypes[k % cellTypes.count]
        let spot = Spot.allCases.randomElement(using: &rng)!
        var event = ViewEvent.buttonClick
        let pattern: String
        switch spot {
        case .cellButton:
            let cellIndex: String
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<6: cellIndex = "\(Int.random(in: 0..<3, using: &rng)):*"
            case 6..<9: cellIndex = "*"
            default: cellIndex = "0:\(Int.random(in: 0..<20, using: &rng))"
            }
            pattern = "\(s)-UIView-UITableView-\(cell)-UITableViewCellContentView-UIButton&0-0-0-\(cellIndex)-0-\(Int.random(in: 0..<3, using: &rng))"
        case .cellTap:
            event = .listItemClick
            pattern = "\(s)-UIView-UITableView-\(cell)&0-0-0-\(Int.random(in: 0..<3, using: &rng)):*"
        case .plainButton:
            pattern = "\(s)-UIView-UIStackView-UIButton&0-0-0-\(Int.random(in: 0..<6, using: &rng))"
        case .switchChange:
            event = .valueChanged
            pattern = "\(s)-UIView-UISwitch&0-0-\(Int.random(in: 0..<3, using: &rng))"
        case .tableScroll:
            event = .scroll
            pattern = "\(s)-UIView-UITableView&0-0-0"
        case .page:
            event = Bool.random(using: &rng) ? .pageEnter : .pageLeave
            pattern = "\(s)&0"
        }
        let appKey = Int.random(in: 0..<5, using: &rng) == 0 ? "blog" : "shop"
        let range = ["*", "*", ">=3.0", "<3.0", ">=3.2 <4", ">=1.0 <3.2"].randomElement(using: &rng)!
        let content = (spot == .cellButton || spot == .plainButton) && Int.random(in: 0..<6, using: &rng) == 0
            ? titles.randomElement(using: &rng)! : nil
        return KVCRule(
            id: "rule-\(n)", appKey: appKey, appVersion: try! VersionRange(range), viewEvent: event,
            viewPath: try! PathPattern(pattern), keyPath: try! KVCKeyPath("product.id"), keyName: "productId", content: content)
    }

    /// An event on a random view of screen `k`.
    mutating func event(screen k: Int) -> MatchQuery {
        let s = screen(k)
        let cell = cellTypes[k % cellTypes.count]
        func el(_ name: String, _ i: Int) -> ViewPath.Element { .init(name: name, index: .position(i)) }
        let row = PathIndex.cell(CellIndexPath(section: Int.random(in: 0..<3, using: &rng), row: Int.random(in: 0..<50, using: &rng)))
        var title: String?
        let event: ViewEvent
        var els = [el(s, 0), el("UIView", 0)]
        switch Spot.allCases.randomElement(using: &rng)! {
        case .cellButton:
            event = .buttonClick
            els += [el("UITableView", 0), .init(name: cell, index: row), el("UITableViewCellContentView", 0), el("UIButton", Int.random(in: 0..<4, using: &rng))]
            title = titles.randomElement(using: &rng)!
        case .cellTap:
            event = .listItemClick
            els += [el("UITableView", 0), .init(name: cell, index: row)]
        case .plainButton:
            event = .buttonClick
            els += [el("UIStackView", 0), el("UIButton", Int.random(in: 0..<8, using: &rng))]
            title = titles.randomElement(using: &rng)!
        case .switchChange:
            event = .valueChanged
            els += [el("UISwitch", Int.random(in: 0..<4, using: &rng))]
        case .tableScroll:
            event = .scroll
            els += [el("UITableView", 0)]
        case .page:
            event = Bool.random(using: &rng) ? .pageEnter : .pageLeave
            els = [el(s, 0)]
        }
        return MatchQuery(viewEvent: event, path: ViewPath(elements: els), title: title)
    }
}

struct Setup {
    let plan: TrackingPlan
    let indexed: PlanMatcher
    let linear: LinearScan
    let events: [MatchQuery]
    let buildTime: Duration
}

/// `rules` rules over rules/20 screens; a pool of `pool` events over twice as many screens.
func setup(rules: Int, pool: Int, seed: UInt64) -> Setup {
    var w = Workload(rng: SeededGenerator(seed: seed))
    let screens = max(5, rules / 20)
    let plan = TrackingPlan(rules: (0..<rules).map { w.rule($0, screen: Int.random(in: 0..<screens, using: &w.rng)) })
    let clock = ContinuousClock()
    let start = clock.now
    let indexed = PlanMatcher(plan: plan, app: app)
    let buildTime = clock.now - start
    // The field downloads the rules of its own app version only, then scans them one by one.
    let linear = LinearScan(rules: plan.rules.filter { $0.appKey == app.key && $0.appVersion.contains(app.version) })
    let events = (0..<pool).map { _ in w.event(screen: Int.random(in: 0..<(2 * screens), using: &w.rng)) }
    return Setup(plan: plan, indexed: indexed, linear: linear, events: events, buildTime: buildTime)
}

/// ns per event for `count` events cycling through the pool; `sink` keeps the work observable.
func measure(_ count: Int, _ events: [MatchQuery], _ body: (MatchQuery) -> Int) -> (ns: Double, sink: Int) {
    var sink = 0
    let elapsed = Benchmark.wallTime {
        events.withUnsafeBufferPointer { events in
            var i = 0
            for _ in 0..<count {
                sink &+= body(events[i])
                i += 1
                if i == events.count { i = 0 }
            }
        }
    }
    return (Benchmark.nanoseconds(elapsed) / Double(count), sink)
}

/// Both must find the same rules (by id, in order) for every event of a sample.
func checkAgreement(_ s: Setup, sample: Int) {
    for q in s.events.prefix(sample) {
        let a = s.indexed.matchingRuleIndexes(q).map { s.plan.rules[$0].id }
        let b = s.linear.matchingRuleIndexes(q).map { s.linear.rules[$0].id }
        precondition(a == b, "indexed and linear disagree on \(q.path.canonical): \(a) vs \(b)")
    }
}

func pad(_ s: String, _ n: Int) -> String { Benchmark.column(s, width: n) }
func fixed(_ v: Double, _ digits: Int) -> String { Benchmark.fixed(v, digits) }

// `--profile`: the indexed matcher alone, for a profiler.
var profile = false
ToolArguments(
    "match-bench",
    usage: Benchmark.usage(
        "match-bench", measures: "The indexed rule matcher against the plain linear scan, ns per event, 100 to 100,000 rules.",
        options: [("--profile", "only the indexed matcher on 10,000 rules, for a profiler")],
        quick: "a ~5 s run (fewer events and rule counts)", example: "swift run -c release match-bench --quick")
).read { option in
    profile = profile || option == "--profile"
    return option == "--profile"
}
if profile {
    let p = setup(rules: 10_000, pool: 100_000, seed: 42)
    let r = measure(5_000_000, p.events) { p.indexed.matchingRuleIndexes($0).count }
    print("indexed: \(r.ns) ns/event (sink \(r.sink))")
    exit(0)
}

// ---- Main run: 10,000 rules, 1,000,000 events.
let mainRules = 10_000
let mainEvents = quick ? 100_000 : 1_000_000
let s = setup(rules: mainRules, pool: 100_000, seed: 42)
checkAgreement(s, sample: 2_000)
var histogram = [0, 0, 0]
var totalMatches = 0
for q in s.events.prefix(20_000) {
    let n = s.indexed.matchingRuleIndexes(q).count
    totalMatches += n
    histogram[min(n, 2)] += 1
}
let mix = s.events.prefix(20_000).count
Benchmark.start("match-bench: \(mainRules) rules (\(s.linear.rules.count) for \(app)), \(mainEvents) events")
print(
    "event mix: \(fixed(Double(histogram[0]) * 100 / Double(mix), 1))% match nothing, "
        + "\(fixed(Double(histogram[1]) * 100 / Double(mix), 1))% one rule, \(fixed(Double(histogram[2]) * 100 / Double(mix), 1))% more; "
        + "\(fixed(Double(totalMatches) / Double(mix), 2)) matches per event")
print("index build: \(fixed(Benchmark.nanoseconds(s.buildTime) / 1e6, 1)) ms")

let indexedRun = measure(mainEvents, s.events) { s.indexed.matchingRuleIndexes($0).count }
let linearCount = quick ? 2_000 : 10_000
let linearRun = measure(linearCount, s.events) { s.linear.matchingRuleIndexes($0).count }
print(
    "indexed: \(fixed(indexedRun.ns, 1)) ns/event, \(fixed(1e9 / indexedRun.ns / 1e6, 2)) M events/s "
        + "(\(mainEvents) events)")
print(
    "linear:  \(fixed(linearRun.ns, 1)) ns/event, \(fixed(1e9 / linearRun.ns / 1e3, 1)) k events/s "
        + "(\(linearCount)-event sample, scaled)")
print("ratio:   indexed is \(fixed(linearRun.ns / indexedRun.ns, 0))× faster than the linear scan (goal ≥ 50×)")

// Values too: match + read each matched rule's key path from JSON props.
let props: JSONValue = ["product": ["id": "p-42"]]
let reader = JSONPropsReader(props: props)
let withValues = measure(mainEvents / 4, s.events) { s.indexed.match($0, reader: reader).count }
print("indexed + key-path reads: \(fixed(withValues.ns, 1)) ns/event")

// The last-view cache: each view meets its event 4 times in a row (scrolls, value changes).
var repeated: [MatchQuery] = []
for q in s.events.prefix(25_000) { repeated += [q, q, q, q] }
let cache = MatchCache()
let cached = measure(repeated.count, repeated) { s.indexed.matchingRuleIndexes($0, cache: cache).count }
let uncached = measure(repeated.count, repeated) { s.indexed.matchingRuleIndexes($0).count }
let stats = cache.statistics
print(
    "cache (each view 4× in a row): \(fixed(cached.ns, 1)) ns/event cached vs \(fixed(uncached.ns, 1)) uncached, "
        + "\(stats.hits) hits / \(stats.misses) misses")

// ---- Scaling: flat as the rule count grows.
print("")
print("rules   | indexed ns/event | linear ns/event | ratio")
print("--------|------------------|-----------------|------")
let sizes = quick ? [100, 1_000, 10_000] : [100, 1_000, 10_000, 100_000]
for (k, n) in sizes.enumerated() {
    let t = setup(rules: n, pool: 50_000, seed: 100 + UInt64(k))
    checkAgreement(t, sample: 300)
    let idx = measure(quick ? 50_000 : 300_000, t.events) { t.indexed.matchingRuleIndexes($0).count }
    // Keep the linear sample near 10⁸ rule checks (quick: 10⁷).
    let budget = quick ? 10_000_000 : 100_000_000
    let lin = measure(max(200, min(50_000, budget / max(1, t.linear.rules.count))), t.events) {
        t.linear.matchingRuleIndexes($0).count
    }
    print("\(pad(String(n), 7)) | \(pad(fixed(idx.ns, 1), 16)) | \(pad(fixed(lin.ns, 1), 15)) | \(pad(fixed(lin.ns / idx.ns, 0), 5))×")
}
