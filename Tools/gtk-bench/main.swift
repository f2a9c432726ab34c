// gtk-bench: the time the GTK hooks add on the UI thread to one click (docs/performance.md).
//
// Run in release on an X display: `swift run -c release gtk-bench [--quick]` (it starts itself under
// `xvfb-run -a` when DISPLAY is unset). A button deep in a product page (window → stack page →
// frame → boxes) has an app handler that updates a label, as the shop's does. "Clicking" is
// emitting its `clicked` signal with the hooks told that a user's pointer event aimed at it is
// being handled (a process cannot feed itself real input in GTK 4), so the whole tracked path
// runs: the input gate, the node, the path, the event code, the tracker (plan match, a KVC rule
// reading `parent.parent.parent.label` from the live widgets) and the hand-off to the reporting
// thread. The baseline is the same emission before the hooks are installed.
import BenchmarkSupport
import CGtk
import EventModel
import Foundation
import GtkTracking
import Interactions
import KVCConfig
import Reporters
import Tracker

ToolArguments(
    "gtk-bench",
    usage: Benchmark.usage(
        "gtk-bench", measures: "The time the GTK hooks add on the UI thread to one click, as a ratio to the click before the hooks (under xvfb-run without DISPLAY).",
        quick: "3 rounds of 2,000 clicks instead of 7 of 20,000", example: "swift run -c release gtk-bench --quick")
).read()

if ProcessInfo.processInfo.environment["DISPLAY"] == nil, ProcessInfo.processInfo.environment["WAYLAND_DISPLAY"] == nil {
    // No display: start again under a virtual one.
    Benchmark.exitRunning(
        "/usr/bin/xvfb-run", ["-a", CommandLine.arguments[0]] + CommandLine.arguments.dropFirst(),
        environment: ProcessInfo.processInfo.environment, name: "gtk-bench")
}
guard gtk_init_check() != 0 else {
    Benchmark.complain("gtk-bench: cannot open the display \(ProcessInfo.processInfo.environment["DISPLAY"] ?? "")")
    exit(1)
}

// The product page.
func widget(_ w: UnsafeMutablePointer<GtkWidget>?) -> UnsafeMutablePointer<GtkWidget> { w! }
func box(_ w: UnsafeMutablePointer<GtkWidget>) -> UnsafeMutablePointer<GtkBox> { UnsafeMutableRawPointer(w).assumingMemoryBound(to: GtkBox.self) }
let window = widget(gtk_window_new())
let root = widget(gtk_box_new(GTK_ORIENTATION_VERTICAL, 0))
gtk_window_set_child(UnsafeMutableRawPointer(window).assumingMemoryBound(to: GtkWindow.self), root)
let stack = widget(gtk_stack_new())
gtk_box_append(box(root), stack)
let page = widget(gtk_box_new(GTK_ORIENTATION_VERTICAL, 0))
for i in 0..<3 { gtk_box_append(box(page), gtk_label_new("line \(i)")) }
let frame = widget(gtk_frame_new("Mug"))
let body = widget(gtk_box_new(GTK_ORIENTATION_VERTICAL, 0))
let status = widget(gtk_label_new("0"))
gtk_box_append(box(body), status)
let actions = widget(gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 0))
for title in ["Favourite", "Share"] { gtk_box_append(box(actions), gtk_button_new_with_label(title)) }
let button = widget(gtk_button_new_with_label("Add to cart"))
gtk_widget_set_name(button, "addToCart")
gtk_box_append(box(actions), button)
gtk_box_append(box(body), actions)
gtk_frame_set_child(OpaquePointer(frame).map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: GtkFrame.self) }, body)
gtk_box_append(box(page), frame)
_ = gtk_stack_add_named(OpaquePointer(stack), page, "detail")
gtk_window_present(UnsafeMutableRawPointer(window).assumingMemoryBound(to: GtkWindow.self))
for _ in 0..<200 { _ = g_main_context_iteration(nil, 0) }

// The app's own handler: count the click on a label.
final class Counter {
    var n = 0
    let label: OpaquePointer
    init(label: OpaquePointer) { self.label = label }
}
let counter = Counter(label: OpaquePointer(status))
let handler: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, data in
    let c = Unmanaged<Counter>.fromOpaque(data!).takeUnretainedValue()
    c.n += 1
    gtk_label_set_text(c.label, String(c.n))
}
g_signal_connect_data(
    UnsafeMutableRawPointer(button), "clicked", unsafeBitCast(handler, to: GCallback.self),
    Unmanaged.passUnretained(counter).toOpaque(), nil, GConnectFlags(rawValue: 0))

// `clicked` emitted as GTK does, with the button as the one parameter.
let clickedSignal = g_signal_lookup("clicked", gtk_button_get_type())
var clickParameters = [GValue()]
_ = g_value_init(&clickParameters[0], gtk_button_get_type())
g_value_set_object(&clickParameters[0], UnsafeMutableRawPointer(button))

@MainActor func click() { g_signal_emitv(&clickParameters, clickedSignal, 0, nil) }

/// This thread's CPU time in nanoseconds: what a click costs the UI thread itself. The machine
/// is shared, so another process's load stretches the wall clock but not this.
func cpuNanoseconds() -> Double { Benchmark.nanoseconds(Benchmark.threadCPUTime()) }

/// Median nanoseconds of UI-thread CPU time per click over `rounds` runs of `count` clicks.
/// `--quick`: 3 rounds of 2,000 (a check that it runs, or a run under valgrind).
@MainActor func measure(rounds: Int = Benchmark.rounds(quick: 3, full: 7), count: Int = Benchmark.rounds(quick: 2_000, full: 20_000)) -> Double {
    let perClick = Benchmark.repeated(rounds) {
        let start = cpuNanoseconds()
        for _ in 0..<count { click() }
        let ns = (cpuNanoseconds() - start) / Double(count)
        // Let GTK lay out the label between rounds, as frames would.
        for _ in 0..<20 { _ = g_main_context_iteration(nil, 0) }
        return ns
    }
    return Benchmark.median(perClick)
}

for _ in 0..<Benchmark.rounds(quick: 200, full: 2_000) { click() }
let baseline = measure()

let rules = #"""
    {"rules":[{"id":"cart","appKey":"bench","appVersion":"*","viewEvent":"ButtonClick",
      "viewPath":"GtkBox(detail)-GtkFrame-GtkBox-GtkBox-GtkButton&0-0-0-0-2","keyPath":"parent.parent.parent.label","keyName":"productName"}]}
    """#
let plan = try ConfigLoader.parse(text: rules, file: "bench-rules.json")
let reporting = ReportingSystem([NoOpReporter()], label: "gtk-bench")
// Every click counts in full: no debounce, no rage-click rule in the way.
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
let hooks = GtkHookSystem(observer: observer)
hooks.start()
hooks._simulateInput(aimedAt: UnsafeMutableRawPointer(button))
for _ in 0..<Benchmark.rounds(quick: 200, full: 2_000) { click() }
let hooksOnly = measure()
observer.target = tracker
for _ in 0..<Benchmark.rounds(quick: 200, full: 2_000) { click() }
let hooked = measure()
hooks._simulateInput(aimedAt: nil)
let events = tracker.events(for: Interaction(kind: .click, node: GtkWidgetNode.node(for: UnsafeMutableRawPointer(button)), timestamp: 0))

Benchmark.start("gtk-bench: one click on a button 8 widgets deep, app handler updating a label")
print(String(format: "  without hooks      %8.2f µs per click", baseline / 1000))
print(String(format: "  hooks, no tracker  %8.2f µs per click (gate, node, code, title, page)", hooksOnly / 1000))
print(String(format: "  with hooks         %8.2f µs per click (tracker, 1 rule, live KVC read)", hooked / 1000))
print(String(format: "  added              %8.2f µs per click, ratio %.2f× (goal: at most 8 µs added)", (hooked - baseline) / 1000, hooked / baseline))
print("  event: \(events.first?.path ?? "none"), productName = \(events.first?.props["productName"]?.jsonText ?? "missing")")
print("  tracker: \(tracker.statistics.interactions) interactions, \(tracker.statistics.debounced) debounced, \(tracker.statistics.dropped) dropped at the reporting queue")
