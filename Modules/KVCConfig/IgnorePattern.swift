public import ViewIdentity

/// A plan's `"ignore"` entry (docs/privacy.md): a view path pattern whose views, and everything
/// inside them, produce no events and are blanked in snapshots.
public struct IgnorePattern: Sendable, Hashable {
    public var pattern: PathPattern
    /// Where it was read (`rules.json`, `ignore[0]`).
    public var location: ConfigLocation

    public init(_ pattern: PathPattern, location: ConfigLocation = ConfigLocation(file: "", keyPath: "")) {
        self.pattern = pattern
        self.location = location
    }

    /// Whether the view at `path` is the ignored view or inside it: the pattern matches the
    /// path's first elements (as many as the pattern has).
    public func covers(_ path: ViewPath) -> Bool { pattern.matchesPrefix(of: path) }
}

extension Array where Element == IgnorePattern {
    /// Whether one of the patterns covers the view at `path` (names it or an ancestor).
    public func cover(_ path: ViewPath) -> Bool { contains { $0.covers(path) } }
}

extension TrackingPlan {
    /// Whether the plan's `ignore` patterns silence the view at `path` (it or an ancestor is named).
    public func ignores(_ path: ViewPath) -> Bool { ignore.cover(path) }
}
