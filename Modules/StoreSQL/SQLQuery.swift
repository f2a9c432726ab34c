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
    enum Piece: Sendable, Hashable {
        case sql(String)
        case value(SQLValue)
    }

    private(set) var pieces: [Piece]

    /// Trusted SQL text with no values.
    public init(raw sql: String) {
        pieces = sql.isEmpty ? [] : [.sql(sql)]
    }

    public init(stringLiteral value: String) {
        self.init(raw: value)
    }

    public init(stringInterpolation: StringInterpolation) {
        pieces = stringInterpolation.pieces
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var pieces: [Piece] = []

        public init(literalCapacity: Int, interpolationCount: Int) {
            pieces.reserveCapacity(2 * interpolationCount + 1)
        }

        public mutating func appendLiteral(_ literal: String) {
            appendSQL(literal)
        }

        /// A value bound to a parameter here.
        public mutating func appendInterpolation<Value: SQLBindable>(_ value: Value) {
            pieces.append(.value(value.sqlValue))
        }

        /// Another query spliced here, its values in place.
        public mutating func appendInterpolation(_ query: SQLQuery) {
            for piece in query.pieces {
                switch piece {
                case .sql(let text): appendSQL(text)
                case .value: pieces.append(piece)
                }
            }
        }

        /// Trusted SQL text (an identifier or fragment our code chose), inserted as written.
        public mutating func appendInterpolation(raw sql: String) {
            appendSQL(sql)
        }

        /// `(v1, v2, …)`, each bound; `(NULL)` for no values, which matches nothing in `IN`.
        public mutating func appendInterpolation<Value: SQLBindable>(list values: some Sequence<Value>) {
            appendSQL("(")
            var first = true
            for v in values {
                if !first { appendSQL(", ") }
                first = false
                pieces.append(.value(v.sqlValue))
            }
            appendSQL(first ? "NULL)" : ")")
        }

        mutating func appendSQL(_ text: String) {
            guard !text.isEmpty else { return }
            if case .sql(let previous)? = pieces.last {
                pieces[pieces.count - 1] = .sql(previous + text)
            } else {
                pieces.append(.sql(text))
            }
        }
    }

    /// How a store writes a parameter's place.
    public enum Placeholders: Sendable {
        /// `?` for each value, in order (SQLite).
        case questionMarks
        /// `$1`, `$2`, … in order (PostgreSQL).
        case numbered
    }

    /// The statement's text with `style`'s placeholders, and the values in parameter order.
    public func rendered(_ style: Placeholders) -> (sql: String, values: [SQLValue]) {
        var sql = ""
        var values: [SQLValue] = []
        for piece in pieces {
            switch piece {
            case .sql(let text):
                sql += text
            case .value(let v):
                values.append(v)
                switch style {
                case .questionMarks: sql += "?"
                case .numbered: sql += "$\(values.count)"
                }
            }
        }
        return (sql, values)
    }

    /// The bound values, in order.
    public var values: [SQLValue] {
        pieces.compactMap { if case .value(let v) = $0 { v } else { nil } }
    }

    public var isEmpty: Bool { pieces.isEmpty }

    /// The text with `?` placeholders: for messages and tests, never for running.
    public var description: String { rendered(.questionMarks).sql }

    /// Appends `other`, its values after this query's.
    public mutating func append(_ other: SQLQuery) {
        var interpolation = StringInterpolation(literalCapacity: 0, interpolationCount: 0)
        interpolation.pieces = pieces
        interpolation.appendInterpolation(other)
        pieces = interpolation.pieces
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
