import EventModel
public import KVCConfig
public import ViewIdentity

/// A node of a tree with what scoring reads from it, computed once.
public struct LocatedNode {
    public let node: TreeNode
    public let path: ViewPath
    /// The tree file it is in.
    public let file: String
    /// The parent's name, and the names and titles of up to `neighbourReach` siblings on each side.
    let neighbourhood: Set<String>
    /// Where it sits among its parent's children: 0 first, 1 last (0 for an only child or a root).
    let position: Double
    /// The key paths of its props' leaves.
    let leafKeyPaths: [KVCKeyPath]

    /// How many siblings on each side count as neighbours: enough to see a toolbar's other
    /// buttons, few enough that a list's thousand rows do not drown the signal (or the time).
    public static let neighbourReach = 3

    public init(node: TreeNode, path: ViewPath, file: String) {
        self.node = node
        self.path = path
        self.file = file
        var neighbourhood: Set<String> = []
        var position = 0.0
        if let parent = node.parent, let i = parent.children.firstIndex(where: { $0 === node }) {
            neighbourhood.insert("parent " + parent.pathName)
            let siblings = parent.children
            for j in max(0, i - Self.neighbourReach)...min(siblings.count - 1, i + Self.neighbourReach) where j != i {
                neighbourhood.insert("name " + siblings[j].pathName)
                if let t = siblings[j].title, !t.isEmpty { neighbourhood.insert("title " + t) }
            }
            if siblings.count > 1 { position = Double(i) / Double(siblings.count - 1) }
        }
        self.neighbourhood = neighbourhood
        self.position = position
        leafKeyPaths = CandidateScore.leafKeyPaths(node.props)
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
        _ candidate: LocatedNode, alignment: PathAlignment, rule: KVCRule, reference: LocatedNode?
    ) -> CandidateScore {
        let c = candidate.node
        var v: [DriftSignal: Double] = [:]
        v[.path] = alignment.similarity
        v[.type] = NameSimilarity.of(rule.viewPath.names.last ?? "", c.pathName)
        if let content = rule.content { v[.content] = c.title == content ? 1 : 0 }
        // The rule's key path tells only where it read something in the old build too.
        // A rule that reads nothing (a studio definition) has no such signal.
        if let keyPath = rule.keyPath, reference.map({ resolves(keyPath, in: $0.node.props) }) ?? true {
            v[.keyPath] = resolves(keyPath, in: c.props) ? 1 : 0
        }
        if let reference {
            let r = reference.node
            if let id = r.id { v[.id] = c.id == id ? 1 : 0 }
            if let title = r.title, !title.isEmpty { v[.title] = c.title == title ? 1 : 0 }
            if !reference.leafKeyPaths.isEmpty {
                let found = reference.leafKeyPaths.filter { resolves($0, in: c.props) }.count
                v[.props] = Double(found) / Double(reference.leafKeyPaths.count)
            }
            if r.parent != nil {
                v[.neighbours] = jaccard(reference.neighbourhood, candidate.neighbourhood)
                v[.position] = 1 - abs(reference.position - candidate.position)
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

    static func jaccard(_ a: Set<String>, _ b: Set<String>) -> Double {
        if a.isEmpty && b.isEmpty { return 1 }
        return Double(a.intersection(b).count) / Double(a.union(b).count)
    }
}
