/// A studio request that failed: the HTTP status, and the `{"error","reason"}` body it answers.
/// A growable struct rather than an enum, like the project's other public errors.
public struct StudioError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as the `error` member spells it.
    public struct Code: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        /// The HTTP status it answers with.
        public var status: Int
        public init(rawValue: String) { self.init(rawValue, status: 400) }
        public init(_ rawValue: String, status: Int) {
            self.rawValue = rawValue
            self.status = status
        }

        /// A malformed request or an invalid rule.
        public static let badRequest = Code("bad-request", status: 400)
        /// No bearer token and no session, or a wrong token.
        public static let unauthorized = Code("unauthorized", status: 401)
        /// A write sent by a page of another origin (`Origin`, `Sec-Fetch-Site`).
        public static let forbidden = Code("forbidden", status: 403)
        public static let notFound = Code("not-found", status: 404)
        public static let methodNotAllowed = Code("method-not-allowed", status: 405)
        /// An id already in use.
        public static let conflict = Code("conflict", status: 409)
        /// A write without `Content-Type: application/json`.
        public static let unsupportedMediaType = Code("unsupported-media-type", status: 415)
        /// Too many wrong tokens from this address (or from everywhere) in a short time.
        public static let tooManyRequests = Code("too-many-requests", status: 429)
        /// The store failed (disk, database); try again later.
        public static let unavailable = Code("unavailable", status: 503)
    }

    public var code: Code
    /// What happened and how to fix it, for a person.
    public var reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { "\(code.rawValue): \(reason)" }
}
