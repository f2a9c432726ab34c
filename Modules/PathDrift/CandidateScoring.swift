import EventModel
import KVCConfig
import ViewIdentity

/// A node of a tree with its path, computed once.
public struct LocatedNode {
    public let node: TreeNode
    public let path: ViewPath
    /// The tree file it is in.
    public let file: String

    public init(node: TreeNode, path: ViewPath, file: String) {
        self.node = node
        self.path = path
        self.file = file
    }

    /// Every node of every tree, in document order.
    public static func all(in trees: [TreeFile]) -> [LocatedNode] {
        var out: [LocatedNode] = []
        for t in trees {
            var stack = [t.tree.root]
            while let n = stack.popLast() {
                out.append(LocatedNode(node: n, path: n.viewPath, file: t.path))
                stack += n.children.reversed()
            }
        }
        return out
    }
}

/// How well one candidate fits one rule (and one node the rule matched in the baseline).
public struct CandidateScore: Sendable, Hashable {
    /// The weighted mean of the signals that applied, rounded to two decimals.
    public var score: Double
    /// Each applicable signal's value.
    public var values: [DriftSignal: Double]

    /// The signals that agreed (value ≥ `DriftSignal.agreement`), in declaration order.
    public var agreeing: [DriftSignal] {
        DriftSignal.allCases.filter { (values[$0] ?? 0) >= DriftSignal.agreement }
    }

    /// True when an identity signal applied (the view could be told by id, title or content).
    public var identityKnown: Bool { values.keys.contains { $0.isIdentity } }

    /// True when an identity signal applied and agreed.
    public var identityAgrees: Bool { values.contains { $0.key.isIdentity && $0.value >= DriftSignal.agreement } }

    /// Scores `candidate` for `rule`, whose pattern lines up with the candidate's path as `alignment`
    /// says, against `reference` (a node the rule matched in the baseline), when there is one.
    public static func score(
        _ candidate: TreeNode, alignment: PathAlignment, rule: KVCRule, reference: TreeNode?
    ) -> CandidateScore {
        var v: [DriftSignal: Double] = [:]
        v[.path] = alignment.similarity
        v[.type] = NameSimilarity.of(rule.viewPath.names.last ?? "", candidate.pathName)
        if let content = rule.content { v[.content] = candidate.title == content ? 1 : 0 }
        // The rule's key path tells only where it read something in the old build too.
        if reference.map({ resolves(rule.keyPath, in: $0.props) }) ?? true {
            v[.keyPath] = resolves(rule.keyPath, in: candidate.props) ? 1 : 0
        }
        if let r = reference {
            if let id = r.id { v[.id] = candidate.id == id ? 1 : 0 }
            if let title = r.title, !title.isEmpty { v[.title] = candidate.title == title ? 1 : 0 }
            let keyPaths = leafKeyPaths(r.props)
            if !keyPaths.isEmpty {
                let found = keyPaths.filter { resolves($0, in: candidate.props) }.count
                v[.props] = Double(found) / Double(keyPaths.count)
            }
            if r.parent != nil {
                v[.neighbours] = jaccard(neighbourhood(of: r), neighbourhood(of: candidate))
                v[.position] = 1 - abs(relativePosition(of: r) - relativePosition(of: candidate))
            }
        }
        // Summed in declaration order, so the same inputs always round the same way.
        var sum = 0.0, weights = 0.0
        for signal in DriftSignal.allCases {
            guard let value = v[signal] else { continue }
            sum += signal.weight * value
            weights += signal.weight
        }
        return CandidateScore(score: (sum / weights * 100).rounded() / 100, values: v)
    }

    static func resolves(_ keyPath: KVCKeyPath, in props: JSONValue?) -> Bool {
        if case .success = keyPath.read(from: props ?? .object(JSONObject())) { return true }
        return false
    }

    /// The key paths of the props' leaves (values that are not objects), depth first, at most 64.
    static func leafKeyPaths(_ props: JSONValue?) -> [KVCKeyPath] {
        guard case .object(let root) = props else { return [] }
        var out: [KVCKeyPath] = []
        func walk(_ o: JSONObject, _ prefix: String) {
            for m in o where out.count < 64 {
                // A key holding a dot could not be named by a key path: skipped.
                guard !m.key.isEmpty, !m.key.contains(".") else { continue }
                let path = prefix.isEmpty ? m.key : prefix + "." + m.key
                if case .object(let inner) = m.value, !inner.isEmpty {
                    walk(inner, path)
                } else if let k = try? KVCKeyPath(path) {
                    out.append(k)
                }
            }
        }
        walk(root, "")
        return out
    }

    /// The parent's name and each sibling's name and title.
    static func neighbourhood(of node: TreeNode) -> Set<String> {
        guard let parent = node.parent else { return [] }
        var s: Set<String> = ["parent " + parent.pathName]
        for sibling in parent.children where sibling !== node {
            s.insert("name " + sibling.pathName)
            if let t = sibling.title, !t.isEmpty { s.insert("title " + t) }
        }
        return s
    }

    /// 0 for the first child, 1 for the last, 0 for an only child.
    static func relativePosition(of node: TreeNode) -> Double {
        guard let parent = node.parent, parent.children.count > 1,
            let i = parent.children.firstIndex(where: { $0 === node })
        else { return 0 }
        return Double(i) / Double(parent.children.count - 1)
    }

    static func jaccard(_ a: Set<String>, _ b: Set<String>) -> Double {
        if a.isEmpty && b.isEmpty { return 1 }
        return Double(a.intersection(b).count) / Double(a.union(b).count)
    }
}
