/// What differs between the two stores' SQL where both run the same statement.
public enum SQLDialect: Sendable {
    case sqlite
    case postgres

    public var placeholders: SQLQuery.Placeholders {
        switch self {
        case .sqlite: .questionMarks
        case .postgres: .numbered
        }
    }
}

extension SQLQuery {
    /// The text with `dialect`'s placeholders, and the values in parameter order.
    public func rendered(for dialect: SQLDialect) -> (sql: String, values: [SQLValue]) {
        rendered(dialect.placeholders)
    }
}
