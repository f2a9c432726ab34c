/// Whether a definition still counts in each version of its app (`GET /api/rules/{id}/health`,
/// docs/studio.md "Definitions that survive releases").
public struct RuleHealth: Sendable, Hashable {
    public struct Version: Sendable, Hashable {
        public var appVersion: String
        /// The version's stored events the definition selects.
        public var count: Int
        /// Whether the version's newest picture of the definition's page has an element it selects.
        public var inPicture: Bool
        /// `ok`, `broken` or `unseen`.
        public var status: String
        /// For a broken version, the drift check's pattern (applying it adds it to `alsoViewPaths`).
        public var suggestion: String?
        /// The picture looked at, nil when the version has none of the page.
        public var snapshot: Int64?

        public init(appVersion: String, count: Int, inPicture: Bool, status: String, suggestion: String?, snapshot: Int64?) {
            self.appVersion = appVersion
            self.count = count
            self.inPicture = inPicture
            self.status = status
            self.suggestion = suggestion
            self.snapshot = snapshot
        }
    }

    /// Oldest version first.
    public var versions: [Version]

    public init(versions: [Version]) { self.versions = versions }
}
