import EventStore
import StoreSQL

extension EventFilter {
    /// The filter with its text as PostgreSQL stores it (`PostgresText.encode`), for comparing
    /// with stored columns.
    var stored: EventFilter {
        EventFilter(appKey: PostgresText.encode(appKey), appVersion: PostgresText.encode(appVersion), since: since, until: until)
    }

    /// ` WHERE …` over the filter's conditions on PostgreSQL (`conditions(table:timed:dialect:)`,
    /// text in its stored form) and `extra` after them, or nothing.
    func postgresWhere(table: String = "", timed: Bool = true, _ extra: SQLQuery...) -> SQLQuery {
        postgresWhere(table: table, timed: timed, extra)
    }

    func postgresWhere(table: String = "", timed: Bool = true, _ extra: [SQLQuery]) -> SQLQuery {
        .where(stored.conditions(table: table, timed: timed, dialect: .postgres) + extra)
    }
}

/// A `text[]` parameter (`\(PostgresTextArray(paths))::text[]`): the values as one array literal.
struct PostgresTextArray: SQLBindable {
    let values: [String?]

    init(_ values: [String?]) { self.values = values }
    init(_ values: [String]) { self.values = values.map(Optional.some) }

    var sqlValue: SQLValue { .text(PostgresArrayLiteral.text(values)) }
}
