import Foundation
import StoreSQL
import Testing
import TestSupport

@testable import PostgresStore

/// libpq through `PostgresConnection`, the pool and the schema, against a real server.
@Suite struct PostgresConnectionTests {
    @Test func arrayLiteralsCarryEveryCharacterThroughUnnest() throws {
        let c = try PostgresConnection(uri: try PostgresServer.shared().createDatabase())
        let values: [String?] = ["plain", #"a "quoted" \ back\slash"#, nil, "", "NULL", "{braces},commas", "ünï ✓ 😀", "tab\tnew\nline"]
        let rows = try c.execute("SELECT v FROM unnest($1::text[]) WITH ORDINALITY AS t(v, o) ORDER BY o", [
            PostgresArrayLiteral.text(values)
        ]).rows
        #expect(rows.map { $0[0] } == values)
        let ints = try c.execute("SELECT sum(v), count(v), count(*) FROM unnest($1::bigint[]) AS t(v)", [
            PostgresArrayLiteral.integers([1, nil, -3, Int64.max / 2])
        ]).rows
        #expect(ints.first == [String(Int64.max / 2 - 2), "3", "4"])
    }

    @Test func binaryArraysCarryEveryValueThroughUnnest() throws {
        let c = try PostgresConnection(uri: try PostgresServer.shared().createDatabase())
        let texts: [String?] = ["plain", #"a "quoted" \ back\slash"#, nil, "", "NULL", "{braces},commas", "ünï ✓ 😀", "tab\tnew\nline"]
        let bigints: [Int64?] = [1, nil, -3, Int64.max, Int64.min]
        var p = PostgresBinaryArrays()
        p.text(texts)
        p.int8(bigints)
        p.int4([7, -2_147_483_648, 2_147_483_647])
        p.text([String]())
        p.text(["no nulls", "at all"])
        let sql = """
            SELECT 1, t::text, o FROM unnest($1::text[]) WITH ORDINALITY AS x(t, o)
            UNION ALL SELECT 2, v::text, o FROM unnest($2::bigint[]) WITH ORDINALITY AS x(v, o)
            UNION ALL SELECT 3, v::text, o FROM unnest($3::int[]) WITH ORDINALITY AS x(v, o)
            UNION ALL SELECT 4, cardinality($4::text[])::text, 0
            UNION ALL SELECT 5, t, o FROM unnest($5::text[]) WITH ORDINALITY AS x(t, o)
            ORDER BY 1, 3
            """
        // Twice: the first call prepares, the second reuses the prepared statement.
        for _ in 0..<2 {
            let rows = try c.executePrepared("binary_arrays_test", sql, p).rows
            #expect(rows.filter { $0[0] == "1" }.map { $0[1] } == texts)
            #expect(rows.filter { $0[0] == "2" }.map { $0[1] } == bigints.map { $0.map(String.init) })
            #expect(rows.filter { $0[0] == "3" }.map { $0[1] } == ["7", "-2147483648", "2147483647"])
            #expect(rows.filter { $0[0] == "4" }.map { $0[1] } == ["0"])
            #expect(rows.filter { $0[0] == "5" }.map { $0[1] } == ["no nulls", "at all"])
        }
    }

    @Test func theSchemaIsCreatedOnceEvenWhenCollectorsStartTogether() throws {
        let server = try PostgresServer.shared()
        let uri = try server.createDatabase()
        let connections = try (0..<4).map { _ in try PostgresConnection(uri: uri) }
        let errors = ErrorList()
        let threads = connections.map { c in
            Thread {
                do { try PostgresSchema.migrate(c, location: "test") } catch { errors.append("\(error)") }
            }
        }
        threads.forEach { $0.start() }
        try poll("four migrations", within: 60) { threads.allSatisfy { $0.isFinished } }
        #expect(errors.all.isEmpty)
        #expect(try server.psql(uri: uri, "SELECT version FROM autotrack_schema") == [String(PostgresSchema.currentVersion)])
        #expect(try server.psql(uri: uri, "SELECT count(*) FROM pg_tables WHERE tablename IN ('events','rejected','batches','rules','rule_sets')") == ["5"])
    }

    @Test func aNewerOrForeignDatabaseIsRefusedAndLeftUnchanged() throws {
        let server = try PostgresServer.shared()
        let uri = try server.createDatabase()
        let c = try PostgresConnection(uri: uri)
        try PostgresSchema.migrate(c, location: "db")
        try server.psql(uri: uri, "UPDATE autotrack_schema SET version = 99")
        #expect(throws: PostgresError.self) { try PostgresSchema.migrate(c, location: "db") }
        do {
            try PostgresSchema.migrate(c, location: "db")
        } catch {
            #expect(error.code == .schema)
            #expect(error.message.contains("schema version 99, newer than the \(PostgresSchema.currentVersion)"))
        }
        #expect(try server.psql(uri: uri, "SELECT version FROM autotrack_schema") == ["99"])

        let other = try server.createDatabase()
        try server.psql(uri: other, "CREATE TABLE events (x int)")
        let foreign = try PostgresConnection(uri: other)
        do {
            try PostgresSchema.migrate(foreign, location: "other")
            Issue.record("a database with a foreign events table was migrated")
        } catch {
            #expect(error.message.contains("not an Autotrack database"))
        }
        #expect(try server.psql(uri: other, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == ["1"])
    }

    @Test func aStoppedServerIsAConnectionErrorAndThePoolReconnectsWhenItIsBack() throws {
        // A server of its own: it is stopped and started.
        let server = try PostgresServer()
        defer { server.stop() }
        let pool = PostgresPool(uri: server.uri())
        #expect(try pool.withConnection { c throws(PostgresError) in try c.execute("SELECT 1").rows } == [["1"]])
        try server.stopServer()
        do {
            _ = try pool.withConnection { c throws(PostgresError) in try c.execute("SELECT 1") }
            Issue.record("a query on a stopped server succeeded")
        } catch {
            #expect(error.isTransient)
            #expect(error.description.contains("Check that PostgreSQL runs"))
        }
        try server.start()
        #expect(try pool.withConnection { c throws(PostgresError) in try c.execute("SELECT 2").rows } == [["2"]])
    }

    @Test func aMalformedURIIsAUsageError() {
        #expect(throws: PostgresError.self) { try PostgresConnection.validate(uri: "postgresql://host:notaport:x/db?bad") }
    }
}
