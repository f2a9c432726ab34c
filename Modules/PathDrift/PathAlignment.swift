public import ViewIdentity

/// How a rule's old pattern lines up with a path of the new build: an edit distance over path
/// elements, and which new element each old one became.
///
/// Costs (docs/drift.md): an element added or removed 1; a renamed element (another name at the
/// same place) 0.5 + 0.5 × (1 − name similarity), so a rename always costs less than removing one
/// element and adding another; 0.25 more where the pattern does not accept the new index (on a
/// kept or a renamed element). Similarity is 1 − distance ÷ (the longer element count), at least 0.
public struct PathAlignment: Sendable, Hashable {
    /// The old pattern's elements, each with what it became.
    public enum Step: Sendable, Hashable {
        /// Old element `old` is new element `new` (same name, or renamed).
        case kept(old: Int, new: Int)
        /// Old element `old` is gone.
        case removed(old: Int)
        /// New element `new` was added.
        case added(new: Int)
    }

    public static let addedOrRemovedCost = 1.0
    public static let indexChangedCost = 0.25

    public let distance: Double
    public let similarity: Double
    /// In path order.
    public let steps: [Step]
    /// True when every `s:*` of the old pattern is still on a cell of section `s` (the rule's
    /// choice of a list section, which a refactor of the cells does not change).
    public let sectionsKept: Bool

    /// Aligns `pattern` (the rule's path) with `path` (a node of the new build). `nameSimilarity`
    /// may be a cached `NameSimilarity.of` (names repeat across the nodes of a tree).
    public init(
        pattern: PathPattern, path: ViewPath, nameSimilarity: (String, String) -> Double = NameSimilarity.of
    ) {
        let m = pattern.names.count, n = path.elements.count
        func substitution(_ i: Int, _ j: Int) -> Double {
            let element = path.elements[j]
            let index = pattern.indexes[i].matches(element.index) ? 0 : Self.indexChangedCost
            if sameBytes(pattern.names[i], element.name) { return index }
            return 0.5 + 0.5 * (1 - nameSimilarity(pattern.names[i], element.name)) + index
        }
        // cost[i][j]: aligning the first i old elements with the first j new ones.
        var cost = [[Double]](repeating: [Double](repeating: 0, count: n + 1), count: m + 1)
        for i in 0...m { cost[i][0] = Double(i) * Self.addedOrRemovedCost }
        for j in 0...n { cost[0][j] = Double(j) * Self.addedOrRemovedCost }
        if m > 0, n > 0 {
            for i in 1...m {
                for j in 1...n {
                    cost[i][j] = min(
                        cost[i - 1][j - 1] + substitution(i - 1, j - 1),
                        cost[i - 1][j] + Self.addedOrRemovedCost,
                        cost[i][j - 1] + Self.addedOrRemovedCost)
                }
            }
        }
        // Back from the end; ties prefer keeping an element, so renames line up where they can.
        var steps: [Step] = []
        var i = m, j = n
        while i > 0 || j > 0 {
            if i > 0, j > 0, abs(cost[i][j] - (cost[i - 1][j - 1] + substitution(i - 1, j - 1))) < 1e-9 {
                steps.append(.kept(old: i - 1, new: j - 1))
                i -= 1
                j -= 1
            } else if i > 0, abs(cost[i][j] - (cost[i - 1][j] + Self.addedOrRemovedCost)) < 1e-9 {
                steps.append(.removed(old: i - 1))
                i -= 1
            } else {
                steps.append(.added(new: j - 1))
                j -= 1
            }
        }
        self.steps = steps.reversed()
        sectionsKept = self.steps.allSatisfy { step in
            guard case .kept(let old, let new) = step, case .anyRow = pattern.indexes[old] else { return true }
            return pattern.indexes[old].matches(path.elements[new].index)
        }
        distance = cost[m][n]
        let longer = max(m, n)
        similarity = longer == 0 ? 1 : max(0, 1 - distance / Double(longer))
    }

    /// The new path as a pattern, where every index the old pattern left open (`*`, `s:*`) stays
    /// open on the element it became: `*` stays `*`; `s:*` becomes `s':*` on a cell at section
    /// `s'`, and `*` on any other element. Every other index is the new path's own.
    public static func generalize(_ path: ViewPath, like pattern: PathPattern, steps: [Step]) -> [PathPattern.IndexPattern] {
        var indexes = path.elements.map { PathPattern.IndexPattern.exact($0.index) }
        for case .kept(let old, let new) in steps {
            switch pattern.indexes[old] {
            case .exact: continue
            case .any: indexes[new] = .any
            case .anyRow:
                if case .cell(let ip) = path.elements[new].index {
                    indexes[new] = .anyRow(section: ip.section)
                } else {
                    indexes[new] = .any
                }
            }
        }
        return indexes
    }
}
