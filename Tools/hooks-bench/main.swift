// hooks-bench: what tracking adds to a button's action.
//
// Baseline: a button in a window sends its action to a target, with no hook system.
// Hooked: the same, with a hook system running (a proxy beside the target), in two setups:
//   - "observer": the proxy builds an Interaction and hands it to an observer that does nothing;
//   - "pipeline": the default observer converts it to a wire event (viewPath, MD5 viewId, props)
//     and submits it to a ReportingSystem whose reporter drops it.
// (The screen's page_enter is one more event.) Only the app thread's time is measured; the reporting queue is drained between batches.
// Usage: swift run -c release hooks-bench [--quick]
import BenchmarkSupport
import Hooks
import Interactions
import Tracker
import Reporters

final class Counter {
    var taps = 0
}

final class Screen: UIViewController {
    let button = UIButton(title: "Buy")
    override func viewDidLoad() {
        view.addSubview(UILabel(text: "Price"))
        view.addSubview(button)
    }
}

final class DiscardingObserver: InteractionObserver {
    var clicks = 0
    func observe(_ interaction: Interaction) { if interaction.kind == .click { clicks += 1 } }
}

/// A window showing a screen whose button has one action, built in `registry`.
func makeButton(_ registry: AspectRegistry, counter: Counter) -> (UIWindow, UIButton) {
    AspectRegistry.$current.withValue(registry) {
        let window = UIWindow()
        let screen = Screen()
        window.rootViewController = screen
        window.makeKeyAndVisible()
        screen.button.addTarget(counter, action: "onBuy:", for: .touchUpInside) { c, _ in c.taps += 1 }
        return (window, screen.button)
    }
}

/// Nanoseconds per action over `batches` batches of `batchSize`, `drain` run (untimed) after each batch.
func measure(_ button: UIButton, batches: Int, batchSize: Int, drain: () -> Void) -> Double {
    let clock = ContinuousClock()
    var total = Duration.zero
    for _ in 0..<batches {
        let start = clock.now
        for _ in 0..<batchSize { button.sendActions(for: .touchUpInside) }
        total += clock.now - start
        drain()
    }
    return Benchmark.nanoseconds(total) / Double(batches * batchSize)
}

// `--only observer` (or pipeline) skips the other hooked mode, for profiling.
var only: String?
let arguments = ToolArguments(
    "hooks-bench",
    usage: Benchmark.usage(
        "hooks-bench", measures: "What tracking adds to a button's action (observer only, and the whole pipeline), as a ratio to no hooks.",
        options: [("--only MODE", "run only this hooked mode, observer or pipeline (for a profiler)")],
        quick: "8 batches instead of 50", example: "swift run -c release hooks-bench --quick"))
arguments.read { option in
    guard option == "--only" else { return false }
    let mode = arguments.value(after: option, "observer or pipeline")
    guard ["observer", "pipeline"].contains(mode) else { arguments.reject("--only takes observer or pipeline, not '\(mode)'") }
    only = mode
    return true
}
let batchSize = 5_000
let batches = Benchmark.rounds(quick: 8, full: 50)
let rounds = 3

var results: [String: [Double]] = [:]
for _ in 0..<rounds {
    // Baseline: no hooks in this registry.
    do {
        let counter = Counter()
        let (window, button) = makeButton(AspectRegistry(), counter: counter)
        results["baseline", default: []].append(measure(button, batches: batches, batchSize: batchSize) {})
        precondition(counter.taps == batches * batchSize)
        _ = window
    }
    // Hooked, observer only.
    if only == nil || only == "observer" {
        let registry = AspectRegistry()
        let observer = DiscardingObserver()
        let hooks = HookSystem(observer: observer, aspects: registry)
        try! hooks.start()
        let counter = Counter()
        let (window, button) = makeButton(registry, counter: counter)
        results["observer", default: []].append(measure(button, batches: batches, batchSize: batchSize) {})
        precondition(counter.taps == batches * batchSize && observer.clicks == batches * batchSize)
        hooks.stop()
        _ = window
    }
    // Hooked, full pipeline to a no-op reporter.
    if only == nil || only == "pipeline" {
        let registry = AspectRegistry()
        let reporting = ReportingSystem([NoOpReporter()])
        let hooks = HookSystem(observer: ReportingObserver(reporting: reporting), aspects: registry)
        try! hooks.start()
        let counter = Counter()
        let (window, button) = makeButton(registry, counter: counter)
        results["pipeline", default: []].append(measure(button, batches: batches, batchSize: batchSize) { reporting.flush() })
        precondition(counter.taps == batches * batchSize)
        precondition(reporting.statistics.delivered == batches * batchSize + 1, "events were dropped: \(reporting.statistics)")
        hooks.stop()
        _ = window
    }
}

let bestOf = results.mapValues { $0.min()! }
let base = bestOf["baseline"]!
func format(_ x: Double) -> String { Benchmark.fixed(x, 1) }
Benchmark.start("hooks-bench: \(batches * batchSize) actions per mode, best of \(rounds) rounds")
print("baseline (unhooked)     \(format(base)) ns/action")
for k in ["observer", "pipeline"] {
    guard let v = bestOf[k] else { continue }
    print("hooked, \(k == "observer" ? "observer only " : "full pipeline ")  \(format(v)) ns/action   ratio \(format(v / base))x   overhead \(format(v - base)) ns")
}
