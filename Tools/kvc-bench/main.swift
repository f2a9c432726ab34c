// kvc-bench: reading a KVC rule's key path from the live object (reflection, superview steps,
// conversion to JSON), as a ratio to reading the same value by direct property access in the
// same run. Also a JSON view tree's props read for comparison.
// Run: swift run -c release kvc-bench [--quick]
//
// The machine is shared, so each side runs in alternating rounds and keeps its best round, and
// time is this thread's CPU time (CLOCK_THREAD_CPUTIME_ID): another process's load on the two
// cores then stretches the wall clock, not the figures.
import BenchmarkSupport
import DemoShop
import EventModel
import Foundation
import Hooks
import KVCConfig
import ViewIdentity

ToolArguments(
    "kvc-bench",
    usage: Benchmark.usage(
        "kvc-bench", measures: "Reading a KVC rule's key path from the live object, as a ratio to direct property access (thread CPU time).",
        quick: "1 round of 0.1 s instead of 5 of 0.4 s", example: "swift run -c release kvc-bench --quick")
).read()

let rounds = Benchmark.rounds(quick: 1, full: 5)
let roundSeconds = Benchmark.isQuick ? 0.1 : 0.4

/// This thread's CPU time in nanoseconds.
func cpuNanoseconds() -> Double { Benchmark.nanoseconds(Benchmark.threadCPUTime()) }

/// Nanoseconds per call of `body`, run in batches for about `roundSeconds`; `body` returns a
/// count that is summed so the work cannot be optimised away.
func measure(_ body: () -> Int) -> (ns: Double, sink: Int) {
    var calls = 0
    var sink = 0
    let start = cpuNanoseconds()
    let budget = roundSeconds * 1e9
    while cpuNanoseconds() - start < budget {
        for _ in 0..<1000 { sink &+= body() }
        calls += 1000
    }
    return ((cpuNanoseconds() - start) / Double(calls), sink)
}

func best(_ body: () -> Int) -> Double {
    var ns = Double.infinity
    var sink = 0
    for _ in 0..<rounds {
        let r = measure(body)
        ns = min(ns, r.ns)
        sink &+= r.sink
    }
    if sink == 42 { print("") }  // keeps `sink` alive
    return ns
}

// The demo shop, launched in a registry of its own: a cell holds its Product, a button sits in its content view.
let app = AspectRegistry.$current.withValue(AspectRegistry(diagnostics: { _ in })) { () -> DemoShopApp in
    let app = DemoShopApp()
    app.application.launch()
    return app
}
guard let cell = app.home.tableView.cellForRow(at: CellIndexPath(section: 0, row: 2)) as? ProductCell else {
    fatalError("kvc-bench: the demo shop shows no row 2")
}
let button: UIButton = cell.favButton
let fromButton = try KVCKeyPath("superview.superview.product.id")
let fromCell = try KVCKeyPath("product.id")
let tree = try ViewTree(json: Array(#"{"type":"UIView","id":"root","children":[{"type":"ProductCell","role":"cell","indexPath":[0,2],"id":"cell","props":{"product":{"id":"p-3","name":"Gift Card","price":25}}}]}"#.utf8))
guard let treeCell = tree.node(id: "cell") else { fatalError("kvc-bench: the tree has no cell") }

guard case .success(.string("p-3")) = fromButton.read(reflecting: button),
    case .success(.string("p-3")) = fromCell.read(reflecting: cell),
    case .success(.string("p-3")) = fromCell.read(reflecting: treeCell)
else { fatalError("kvc-bench: the key paths do not read p-3") }

var directButton = Double.infinity, liveButton = Double.infinity
var directCell = Double.infinity, liveCell = Double.infinity, props = Double.infinity
for _ in 0..<rounds {
    directButton = min(directButton, best { ((button.superview?.superview as? ProductCell)?.product?.id).map { $0.utf8.count } ?? 0 })
    liveButton = min(liveButton, best {
        if case .success(.string(let s)) = fromButton.read(reflecting: button) { return s.utf8.count }
        return 0
    })
    directCell = min(directCell, best { cell.product?.id.utf8.count ?? 0 })
    liveCell = min(liveCell, best {
        if case .success(.string(let s)) = fromCell.read(reflecting: cell) { return s.utf8.count }
        return 0
    })
    props = min(props, best {
        if case .success(.string(let s)) = fromCell.read(reflecting: treeCell) { return s.utf8.count }
        return 0
    })
}

func row(_ what: String, _ ns: Double, _ base: Double) {
    print("\(Benchmark.label(what, width: 58)) \(Benchmark.fixed(ns, 1, width: 9)) ns   \(Benchmark.fixed(ns / base, 0, width: 6))× direct (\(Benchmark.fixed(base, 1)) ns)")
}
Benchmark.start("kvc-bench: best of \(rounds) rounds, thread CPU time")
row("live: superview.superview.product.id from the Fav button", liveButton, directButton)
row("live: product.id on the cell", liveCell, directCell)
row("JSON tree: product.id from the node's props", props, directCell)
