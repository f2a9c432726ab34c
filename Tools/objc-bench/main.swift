// objc-bench: the time the AppKit hooks add to one target-action on GNUstep (docs/performance.md).
//
// Run in release on an X display: `swift run -c release objc-bench [--quick]` (it starts itself
// under `xvfb-run -a` when DISPLAY is unset, with the toolchain's blocks runtime preloaded as
// `autotrack-agent run` does). A button in a box of a window whose delegate is a controller has a
// real action (`buy:`, updating a label). A click is `-[NSApplication sendAction:to:from:]`, as
// AppKit sends it after a mouse-up; with the hooks the whole tracked path runs: the trampoline,
// the nodes, the path, the code, the tracker (plan match, one live KVC read of `title` through
// `valueForKeyPath:`) and the hand-off to the reporting queue. The baseline is the same action
// before the hooks are installed, in the same process.
import AppKitTracking
import BenchmarkSupport
import CObjCBench
import EventModel
import Foundation
import Interactions
import KVCConfig
import ObjCRuntime
import Reporters
import Tracker
import ViewIdentity

ToolArguments(
    "objc-bench",
    usage: Benchmark.usage(
        "objc-bench", measures: "The time the AppKit hooks add to one target-action, as a ratio to the action before the hooks (under xvfb-run without DISPLAY).",
        quick: "3 rounds of 2,000 actions instead of 7 of 20,000", example: "swift run -c release objc-bench --quick")
).read()

let environment = ProcessInfo.processInfo.environment
if environment["DISPLAY"] == nil || environment["OBJC_BENCH_BLOCKS"] == nil {
    // Start again under a virtual display, with Swift's blocks runtime before GNUstep base's.
    let maps = String(decoding: FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
    let blocks = maps.split(separator: "\n").compactMap { line in line.firstIndex(of: "/").map { String(line[$0...]) } }
        .first { $0.hasSuffix("/libBlocksRuntime.so") }
    var env = environment
    env["OBJC_BENCH_BLOCKS"] = "1"
    if let blocks { env["LD_PRELOAD"] = blocks }
    if environment["DISPLAY"] == nil {
        Benchmark.exitRunning(
            "/usr/bin/xvfb-run", ["-a", CommandLine.arguments[0]] + CommandLine.arguments.dropFirst(), environment: env, name: "objc-bench")
    }
    Benchmark.exitRunning("/proc/self/exe", Array(CommandLine.arguments.dropFirst()), environment: env, name: "objc-bench")
}
guard atrbench_setup() == 1, let buttonPointer = atrbench_button() else {
    Benchmark.complain("objc-bench: cannot make the AppKit window on \(environment["DISPLAY"] ?? "")")
    exit(1)
}
let button = ObjCObject(buttonPointer)

func cpuNanoseconds() -> Double { Benchmark.nanoseconds(Benchmark.threadCPUTime()) }

/// Median nanoseconds of main-thread CPU time per action over `rounds` runs of `count` actions.
func measure(rounds: Int = Benchmark.rounds(quick: 3, full: 7), count: Int = Benchmark.rounds(quick: 2_000, full: 20_000)) -> Double {
    let perAction = Benchmark.repeated(rounds) {
        let start = cpuNanoseconds()
        atrbench_click(count)
        return (cpuNanoseconds() - start) / Double(count)
    }
    return Benchmark.median(perAction)
}

atrbench_click(Benchmark.rounds(quick: 200, full: 2_000))
let baseline = measure()

let path = AppKitNode.view(button).viewPath.canonical
let rules = """
    {"rules":[{"id":"buy","appKey":"bench","appVersion":"*","viewEvent":"ButtonClick",
      "viewPath":"\(path)","keyPath":"title","keyName":"buttonTitle"}]}
    """
let plan = try ConfigLoader.parse(text: rules, file: "bench-rules.json")
let reporting = ReportingSystem([NoOpReporter()], label: "objc-bench")
var settings = TrackerSettings()
settings.debounce = .zero
settings.rageClicks = Int.max
let tracker = Tracker(plan: plan, app: try TrackedApp(key: "bench", version: "1.0.0"), reporting: reporting, settings: settings)
/// Hands interactions to `target` when set, else only counts them: the hooks' own share.
final class Switch: InteractionObserver {
    var target: (any InteractionObserver)?
    var count = 0
    func observe(_ interaction: Interaction) {
        count += 1
        target?.observe(interaction)
    }
}
let observer = Switch()
let hooks = AppKitHookSystem(observer: observer)
try hooks.start()
atrbench_click(Benchmark.rounds(quick: 200, full: 2_000))
let hooksOnly = measure()
observer.target = tracker
atrbench_click(Benchmark.rounds(quick: 200, full: 2_000))
let hooked = measure()
let events = tracker.events(for: Interaction(kind: .click, node: AppKitNode.view(button), timestamp: 0))

Benchmark.start("objc-bench: one target-action (sendAction:to:from:) on a button in a box, app action updating a label")
print(String(format: "  without hooks      %8.2f µs per action", baseline / 1000))
print(String(format: "  hooks, no tracker  %8.2f µs per action (trampoline, nodes, path, code, title, page)", hooksOnly / 1000))
print(String(format: "  with hooks         %8.2f µs per action (tracker, 1 rule, live KVC read)", hooked / 1000))
print(String(format: "  added              %8.2f µs per action, ratio %.2f× (goal: at most 5 µs added)", (hooked - baseline) / 1000, hooked / baseline))
print("  path: \(path)")
print("  event: \(events.first?.name ?? "none"), buttonTitle = \(events.first?.props["buttonTitle"]?.jsonText ?? "missing")")
print("  actions run: \(atrbench_actions()); hooked interactions: \(observer.count); tracker: \(tracker.statistics.interactions) interactions, \(tracker.statistics.dropped) dropped")
