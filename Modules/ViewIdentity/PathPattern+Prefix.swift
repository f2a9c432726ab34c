extension PathPattern {
    /// Whether the pattern matches the first `elementCount` elements of `path`: `path` is the view
    /// the pattern names or a view inside it (a plan's `ignore` covers a subtree). Allocates nothing.
    public func matchesPrefix(of path: ViewPath) -> Bool {
        let count = names.count
        guard path.elements.count >= count else { return false }
        for i in 0..<count {
            guard indexes[i].matches(path.elements[i].index), sameBytes(names[i], path.elements[i].name) else { return false }
        }
        return true
    }
}
