// viewpath-bench: viewPath + viewId of a view 20 levels below its controller, in nanoseconds per
// view, with baselines measured in the same run: the MD5 of the same canonical string alone, and
// the path computation alone. Run: swift run -c release viewpath-bench [--quick]
import BenchmarkSupport
import Foundation
import ViewIdentity

ToolArguments(
    "viewpath-bench",
    usage: Benchmark.usage(
        "viewpath-bench", measures: "viewPath + viewId of a view 20 levels deep, ns per view, beside the MD5 alone and the path alone.",
        example: "swift run -c release viewpath-bench --quick")
).read()

let depth = 20

/// A toolkit-style node with only the required members, so `pathName` is computed on each call.
final class PlainNode: ViewNode {
    let typeName: String
    let role: ViewRole
    weak var parent: PlainNode?
    var children: [any ViewNode] = []
    init(_ typeName: String, _ role: ViewRole = .view) {
        self.typeName = typeName
        self.role = role
    }
    var parentNode: (any ViewNode)? { parent }
    var childNodes: [any ViewNode] { children }
    func add(_ c: PlainNode) {
        c.parent = self
        children.append(c)
    }
}

/// A controller, then 20 levels; at each level the path goes through the third child, after a
/// same-named sibling and a sibling of another name (so the sibling rule does real work).
func makeTreeNodes() -> (root: TreeNode, leaf: TreeNode) {
    let root = TreeNode(typeName: "Shop.HomeViewController", role: .controller)
    var parent = root
    for level in 1...depth {
        let name = level == depth ? "UIKit.UIButton" : (level % 3 == 0 ? "Shop.ProductCell" : "UIKit.UIView")
        let role: ViewRole = name == "Shop.ProductCell" ? .cell : .view
        parent.append(TreeNode(typeName: name, role: role == .cell ? .view : role))
        parent.append(TreeNode(typeName: "UIKit.UILabel"))
        let next = TreeNode(
            typeName: name, role: role, cellIndexPath: role == .cell ? CellIndexPath(section: 0, row: level) : nil)
        parent.append(next)
        parent = next
    }
    return (root, parent)
}

func makePlainNodes() -> (root: PlainNode, leaf: PlainNode) {
    let root = PlainNode("Shop.HomeViewController", .controller)
    var parent = root
    for level in 1...depth {
        let name = level == depth ? "UIKit.UIButton" : "UIKit.UIView"
        parent.add(PlainNode(name))
        parent.add(PlainNode("UIKit.UILabel"))
        let next = PlainNode(name)
        parent.add(next)
        parent = next
    }
    return (root, parent)
}

/// Nanoseconds per call of `body`, run in batches for about `seconds`.
func slice(_ seconds: Double, _ body: () -> Int) -> (ns: Double, sink: Int) {
    let clock = ContinuousClock()
    var sink = 0
    var calls = 0
    let d = Benchmark.wallTime {
        let deadline = clock.now.advanced(by: .milliseconds(Int(seconds * 1000)))
        while clock.now < deadline {
            for _ in 0..<200 { sink &+= body() }
            calls += 200
        }
    }
    return (Benchmark.nanoseconds(d) / Double(calls), sink)
}

let tree = makeTreeNodes()
let plain = makePlainNodes()
let canonical = tree.leaf.viewPath.canonical
Benchmark.start("viewpath-bench: a view \(depth) levels below its controller")
print("canonical (\(canonical.utf8.count) bytes): \(canonical.prefix(60))…")
print("viewId: \(tree.leaf.viewID)")

// The cases run in alternating slices and each keeps its best slice, so that a burst of other
// load on the shared machine lowers one slice rather than one case.
let cases: [(label: String, body: () -> Int)] = [
    ("baseline: MD5 of the canonical string alone", { MD5.hexDigest(utf8: canonical).utf8.count }),
    ("baseline: viewPath + canonical (no MD5)", { tree.leaf.viewPath.canonical.utf8.count }),
    ("viewPath + viewId (TreeNode)", { tree.leaf.viewPath.viewID.hex.utf8.count }),
    ("viewPath + viewId (toolkit node, computed names)", { plain.leaf.viewPath.viewID.hex.utf8.count }),
]
let rounds = Benchmark.rounds(quick: 4, full: 16)
var best = [Double](repeating: .infinity, count: cases.count)
var sink = 0
for _ in 0..<rounds {
    for (i, c) in cases.enumerated() {
        let r = slice(0.25, c.body)
        best[i] = min(best[i], r.ns)
        sink &+= r.sink
    }
}
for (i, c) in cases.enumerated() {
    print(Benchmark.label(c.label, width: 52) + Benchmark.fixed(best[i], 1, width: 9) + " ns per view")
}
let (md5Alone, pathAlone, full, plainFull) = (best[0], best[1], best[2], best[3])
print("ratio full / MD5 alone:               " + Benchmark.ratio(full, to: md5Alone))
print("ratio full / path alone:              " + Benchmark.ratio(full, to: pathAlone))
print("ratio computed-name node / TreeNode:  " + Benchmark.ratio(plainFull, to: full))
print("best of \(rounds) slices of 0.25 s each; sink \(sink & 0xff)")
withExtendedLifetime((tree.root, plain.root)) {}
