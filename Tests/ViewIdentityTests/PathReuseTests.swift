import Testing
import ViewIdentity

/// `ViewPath(of:reusing:)`: a hook's next path, found while comparing with its last one. Whatever
/// the last path was, the path is the one `ViewPath(of:)` gives; when the two are equal, the last
/// path's storage is shared and no array is made.
@Suite struct PathReuseTests {
    /// A tree with paths of every relation to each other: equal, longer, shorter, sharing their
    /// root or their leaf side only, differing by an index or a name, cells.
    static func tree() -> (root: TreeNode, nodes: [TreeNode]) {
        let buttons = (0..<3).map { _ in node("UIButton") }
        let label = node("UILabel")
        let deep = node("UIButton")
        let cellButton = node("UIButton")
        let cells = (0..<2).map { row in node("Shop.ProductCell", .cell, indexPath: (0, row), [node("UIView", row == 0 ? [cellButton] : [])]) }
        let other = node("UIView", [node("UIView", [deep])])
        let root = node(
            "Shop.HomeViewController", .controller,
            [node("UIView", buttons + [label]), other, node("UITableView", cells)])
        return (root, buttons + [label, deep, cellButton] + cells + [other])
    }

    @Test func aReusedPathIsThePathWhateverTheLastPathWas() {
        let (root, nodes) = Self.tree()
        withExtendedLifetime(root) {
            let last: [ViewPath?] = [nil, ViewPath(elements: [])] + nodes.map { ViewPath(of: $0) }
            for target in nodes {
                let fresh = ViewPath(of: target)
                for previous in last {
                    let reused = ViewPath(of: target, reusing: previous)
                    #expect(reused == fresh, "\(fresh.canonical) after \(previous?.canonical ?? "none")")
                    #expect(reused.canonical == fresh.canonical)
                }
            }
        }
    }

    @Test func anEqualPathSharesTheLastOnesStorage() {
        let (root, nodes) = Self.tree()
        withExtendedLifetime(root) {
            for target in nodes {
                let last = ViewPath(of: target)
                let again = ViewPath(of: target, reusing: last)
                let shared = last.elements.withUnsafeBufferPointer { a in again.elements.withUnsafeBufferPointer { $0.baseAddress == a.baseAddress } }
                #expect(shared, "\(last.canonical)")
                // A path that differs, even only by an index at the leaf, is its own.
                for other in nodes where other !== target {
                    let path = ViewPath(of: other, reusing: last)
                    #expect(path == ViewPath(of: other))
                    #expect(path != last)
                }
            }
        }
    }
}
