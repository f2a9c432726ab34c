/// A store operation that failed: what kind of failure (the collector answers differently to
/// each) and a message that says what, where and how to fix it.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// No database where the location says (reports and listings never create one).
        public static let notFound = Code(rawValue: "not-found")
        /// The location holds something that is not an Autotrack database; it was left unchanged.
        public static let notAutotrack = Code(rawValue: "not-autotrack")
        /// The database's schema is newer than this build knows, or too old to read without migrating.
        public static let schemaVersion = Code(rawValue: "schema-version")
        /// Busy, locked, full or unreachable: the same request may succeed later.
        public static let unavailable = Code(rawValue: "unavailable")
        /// A write on a store opened read-only, or on a file without write permission.
        public static let readOnly = Code(rawValue: "read-only")
        /// The store was closed.
        public static let closed = Code(rawValue: "closed")
        /// A file of the database is damaged, or lost what it held: the message names the file,
        /// what is lost and the repair; nothing was changed.
        public static let damaged = Code(rawValue: "damaged")
        /// Anything else the database reported.
        public static let failed = Code(rawValue: "failed")
    }

    public var code: Code
    /// What failed, where, and what to do about it.
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
