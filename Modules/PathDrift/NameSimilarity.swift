import ViewIdentity

/// How alike two names are: 1 − (Levenshtein distance over Unicode scalars) ÷ (the longer length).
///
/// `ProductCell` / `ProductListCell`: 4 insertions over 15 → 0.73; equal names → 1; nothing in
/// common → 0. One measure for type names, class names and action names, so one threshold means
/// the same thing everywhere (docs/drift.md).
public enum NameSimilarity {
    public static func of(_ a: String, _ b: String) -> Double {
        if sameBytes(a, b) { return 1 }
        let x = Array(a.unicodeScalars), y = Array(b.unicodeScalars)
        let longer = max(x.count, y.count)
        guard longer > 0 else { return 1 }
        return 1 - Double(distance(x, y)) / Double(longer)
    }

    /// Insertions, deletions and substitutions that turn `x` into `y`, each costing 1.
    static func distance(_ x: [Unicode.Scalar], _ y: [Unicode.Scalar]) -> Int {
        guard !x.isEmpty else { return y.count }
        guard !y.isEmpty else { return x.count }
        var previous = Array(0...y.count)
        var current = [Int](repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            current[0] = i
            for j in 1...y.count {
                let substitution = previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1)
                current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
            }
            swap(&previous, &current)
        }
        return previous[y.count]
    }
}
