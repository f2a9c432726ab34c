/// A statement (or a part of one) whose interpolated values are bound where they appear.
///
/// Written once for both stores, and rendered with each one's placeholders:
///
///     let q: SQLQuery = "SELECT COUNT(*) FROM events WHERE app_key = \(key) AND ts >= \(since)"
///     q.rendered(.questionMarks)  // ("… app_key = ? AND ts >= ?", [.text(key), .int(since)])
///     q.rendered(.numbered)       // ("… app_key = $1 AND ts >= $2", [.text(key), .int(since)])
///
/// An interpolated `SQLBindable` (`String`, `Int64`, `Double`, optionals…) is always a bound
/// value, never SQL text, so client-chosen text cannot change a statement. An interpolated
/// `SQLQuery` is spliced with its own values in place; `\(raw:)` inserts trusted SQL text (a
/// column or table name chosen by our code), and `\(list:)` a parenthesized list of values.
public struct SQLQuery: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    // Kept as SQLite runs it, built while the query is interpolated: a statement executed again
    // looks up its prepared form by this text, so rendering it must cost nothing.
    /// The text with `?` for each value.
    private(set) var text: String
    /// The bound values, in order.
    public private(set) var values: [SQLValue]
    /// Where each value's `?` is in `text` (UTF-8 offsets, in order): `numbered` rewrites them.
    private(set) var placeholderOffsets: [Int]

    /// Trusted SQL text with no values.
    public init(raw sql: String) {
        text = sql
        values = []
        placeholderOffsets = []
    }

    public init(stringLiteral value: String) {
        self.init(raw: value)
    }

    public init(stringInterpolation: StringInterpolation) {
        self = stringInterpolation.query
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var query = SQLQuery(raw: "")

        public init(literalCapacity: Int, interpolationCount: Int) {
            query.text.reserveCapacity(literalCapacity + interpolationCount)
            query.values.reserveCapacity(interpolationCount)
            query.placeholderOffsets.reserveCapacity(interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) {
            query.text += literal
        }

        /// A value bound to a parameter here.
        public mutating func appendInterpolation<Value: SQLBindable>(_ value: Value) {
            query.appendValue(value.sqlValue)
        }

        /// Another query spliced here, its values in place.
        public mutating func appendInterpolation(_ query: SQLQuery) {
            self.query.append(query)
        }

        /// Trusted SQL text (an identifier or fragment our code chose), inserted as written.
        public mutating func appendInterpolation(raw sql: String) {
            query.text += sql
        }

        /// `(v1, v2, …)`, each bound; `(NULL)` for no values, which matches nothing in `IN`.
        public mutating func appendInterpolation<Value: SQLBindable>(list values: some Sequence<Value>) {
            query.text += "("
            var first = true
            for v in values {
                if !first { query.text += ", " }
                first = false
                query.appendValue(v.sqlValue)
            }
            query.text += first ? "NULL)" : ")"
        }
    }

    private mutating func appendValue(_ value: SQLValue) {
        placeholderOffsets.append(text.utf8.count)
        text += "?"
        values.append(value)
    }

    /// How a store writes a parameter's place.
    public enum Placeholders: Sendable {
        /// `?` for each value, in order (SQLite).
        case questionMarks
        /// `$1`, `$2`, … in order (PostgreSQL).
        case numbered
    }

    /// The statement's text with `style`'s placeholders, and the values in parameter order.
    /// With `?`s it is the text as built (no work); `$n` is written from it.
    public func rendered(_ style: Placeholders) -> (sql: String, values: [SQLValue]) {
        switch style {
        case .questionMarks:
            return (text, values)
        case .numbered:
            var sql = ""
            var utf8 = text.utf8[...]
            var from = 0
            for (i, offset) in placeholderOffsets.enumerated() {
                sql += Substring(utf8.prefix(offset - from))
                sql += "$\(i + 1)"
                utf8 = utf8.dropFirst(offset - from + 1)
                from = offset + 1
            }
            sql += Substring(utf8)
            return (sql, values)
        }
    }

    public var isEmpty: Bool { text.isEmpty && values.isEmpty }

    /// The text with `?` placeholders: for messages and tests, never for running.
    public var description: String { rendered(.questionMarks).sql }

    /// Appends `other`, its values after this query's.
    public mutating func append(_ other: SQLQuery) {
        let base = text.utf8.count
        text += other.text
        values += other.values
        placeholderOffsets += other.placeholderOffsets.lazy.map { $0 + base }
    }

    public static func + (lhs: SQLQuery, rhs: SQLQuery) -> SQLQuery {
        var q = lhs
        q.append(rhs)
        return q
    }

    /// The parts with `separator` between them (empty parts included as they are).
    public static func joined(_ parts: [SQLQuery], separator: String) -> SQLQuery {
        var q = SQLQuery(raw: "")
        for (i, part) in parts.enumerated() {
            if i > 0 { q.append(SQLQuery(raw: separator)) }
            q.append(part)
        }
        return q
    }

    /// ` WHERE c1 AND c2 …` over the conditions, or nothing when there are none.
    public static func `where`(_ conditions: [SQLQuery]) -> SQLQuery {
        conditions.isEmpty ? "" : " WHERE " + joined(conditions, separator: " AND ")
    }
}
