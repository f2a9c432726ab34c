import EventStore
import StoreSQL
import Testing

@Suite struct SQLQueryTests {
    @Test func interpolatedValuesAreBoundInOrderWithEachStoresPlaceholders() {
        let key = "shop'; DROP TABLE events; --"
        let since: Int64 = 1_700_000_000_000
        let q: SQLQuery = "SELECT COUNT(*) FROM events WHERE app_key = \(key) AND corrected_ts >= \(since)"
        let sqlite = q.rendered(.questionMarks)
        #expect(sqlite.sql == "SELECT COUNT(*) FROM events WHERE app_key = ? AND corrected_ts >= ?")
        #expect(sqlite.values == [.text(key), .int(since)])
        let postgres = q.rendered(for: .postgres)
        #expect(postgres.sql == "SELECT COUNT(*) FROM events WHERE app_key = $1 AND corrected_ts >= $2")
        #expect(postgres.values == sqlite.values)
    }

    @Test func splicedQueriesKeepTheirValuesWhereTheyAppear() {
        let inner: SQLQuery = "(SELECT COUNT(*) FROM rejected WHERE app_key = \("a"))"
        let q: SQLQuery = "SELECT \(inner), \(Int64(7)), \(inner) FROM batches WHERE v = \("b")"
        let r = q.rendered(.numbered)
        #expect(
            r.sql == "SELECT (SELECT COUNT(*) FROM rejected WHERE app_key = $1), $2, "
                + "(SELECT COUNT(*) FROM rejected WHERE app_key = $3) FROM batches WHERE v = $4")
        #expect(r.values == [.text("a"), .int(7), .text("a"), .text("b")])
    }

    @Test func optionalsListsRawTextAndJoins() {
        let none: String? = nil
        let ids = ["x", "y", "z"]
        let q: SQLQuery = "SELECT \(raw: "device_id") FROM t WHERE u = \(none) AND id IN \(list: ids) AND n IN \(list: [Int64]())"
        let r = q.rendered(.questionMarks)
        #expect(r.sql == "SELECT device_id FROM t WHERE u = ? AND id IN (?, ?, ?) AND n IN (NULL)")
        #expect(r.values == [.null, .text("x"), .text("y"), .text("z")])
        #expect(SQLQuery.where([]).isEmpty)
        let w = SQLQuery.where(["a = \(Int64(1))", "b = \(2.5)"]).rendered(.numbered)
        #expect(w.sql == " WHERE a = $1 AND b = $2")
        #expect(w.values == [.int(1), .double(2.5)])
        var appended: SQLQuery = "x = \(true)"
        appended.append(" OR y = \(false)")
        #expect(appended.rendered(.numbered).sql == "x = $1 OR y = $2")
        #expect(appended.values == [.int(1), .int(0)])
    }

    @Test func anEventFilterBecomesTheSameConditionsForBothStores() {
        let f = EventFilter(appKey: "shop", appVersion: "1.2", since: 10, until: 20)
        let sqlite = f.whereClause(table: "e", dialect: .sqlite, "e.path IS NOT NULL").rendered(for: .sqlite)
        #expect(
            sqlite.sql == " WHERE e.app_key = ? AND e.app_version = ? AND e.corrected_ts >= ? AND e.corrected_ts < ? AND e.path IS NOT NULL")
        #expect(sqlite.values == [.text("shop"), .text("1.2"), .int(10), .int(20)])
        let postgres = f.whereClause(dialect: .postgres).rendered(for: .postgres)
        #expect(postgres.sql == " WHERE app_key = $1 AND app_version = $2 AND corrected_ts >= $3 AND corrected_ts < $4")
        // Untimed tables are filtered by app and version only; without a range SQLite's app key
        // condition carries `+`, which keeps the planner off the time index.
        let untimed = f.whereClause(timed: false, dialect: .sqlite).rendered(for: .sqlite)
        #expect(untimed.sql == " WHERE +app_key = ? AND app_version = ?")
        #expect(EventFilter().whereClause(dialect: .postgres).isEmpty)
    }

    @Test func rowsDecodeByColumnNameWithTypedErrors() throws {
        struct Row: SQLRow {
            let columns: [String: SQLValue]
            func value(named name: String) throws(SQLDecodingError) -> SQLValue {
                guard let v = columns[name] else { throw SQLDecodingError(.noSuchColumn, column: name) }
                return v
            }
        }
        let row = Row(columns: ["n": .int(3), "t": .text("42"), "u": .null, "d": .double(1.5), "b": .blob([1, 2])])
        #expect(try row.decode("n", as: Int64.self) == 3)
        #expect(try row.decode("t", as: Int64.self) == 42)
        #expect(try row.decode("u", as: String?.self) == nil)
        #expect(try row.decode("d", as: Double.self) == 1.5)
        #expect(try row.decode("b", as: [UInt8].self) == [1, 2])
        #expect(try row["n", as: Bool.self])
        #expect(throws: SQLDecodingError(.typeMismatch, column: "u", found: .null)) { try row.decode("u", as: String.self) }
        #expect(throws: SQLDecodingError(.noSuchColumn, column: "nope")) { try row.decode("nope", as: Int64.self) }
    }
}
