import StoreSQL
import Testing
import TestSupport

@testable import PostgresStore

/// `PostgresConnection.execute(SQLQuery)`: values bound with their types where they appear,
/// rows read by column name.
@Suite struct PostgresQueryTests {
    @Test func valuesAreBoundWithTheirTypesAndRowsReadByName() throws {
        let c = try PostgresConnection(uri: try PostgresServer.shared().createDatabase())
        let text = #"it's "quoted" \ 😀 $1 ?"#
        let bytes: [UInt8] = [0, 1, 0x7F, 0x80, 0xFF]
        let none: String? = nil
        // No casts: each parameter arrives as bigint, double precision, text, bytea.
        let rows = try c.execute(
            """
            SELECT \(Int64.min) AS lowest, \(Int64.max) - 1 AS below_max, pg_typeof(\(Int64(7)))::text AS int_type,
                   \(0.1) + \(0.2) AS sum, pg_typeof(\(2.5))::text AS double_type, \(text) AS text, length(\(text)) AS length,
                   encode(\(SQLValue.blob(bytes)), 'hex') AS hex, \(none)::text AS nothing, \(true) = 1 AS flag
            """)
        #expect(rows.count == 1)
        let r = try #require(rows.first)
        #expect(try r.decode("lowest", as: Int64.self) == Int64.min)
        #expect(try r.decode("below_max", as: Int64.self) == Int64.max - 1)
        #expect(try r.decode("int_type", as: String.self) == "bigint")
        #expect(try r.decode("sum", as: Double.self) == 0.1 + 0.2)
        #expect(try r.decode("double_type", as: String.self) == "double precision")
        #expect(try r.decode("text", as: String.self) == text)
        #expect(try r.decode("length", as: Int.self) == text.unicodeScalars.count)
        #expect(try r.decode("hex", as: String.self) == "00017f80ff")
        #expect(try r.decode("nothing", as: String?.self) == nil)
        #expect(try r.decode("flag", as: Bool.self))
        #expect(throws: SQLDecodingError(.noSuchColumn, column: "missing")) { try r.decode("missing", as: Int64.self) }
        // A column of another type is the statement's error, naming the column.
        let error = #expect(throws: PostgresError.self) { try rows.decode { r throws(SQLDecodingError) in try r["text", as: Int64.self] } }
        #expect(error?.message.contains("\"text\"") == true)
    }

    @Test func storedTextIsDecodedAndItsBytesStayReadable() throws {
        let c = try PostgresConnection(uri: try PostgresServer.shared().createDatabase())
        let sent = "a\u{0}b\u{FFFF}"
        let rows = try c.execute("SELECT \(PostgresText.encode(sent)) AS t")
        #expect(try rows.first("t", as: String.self) == sent)
        #expect(try rows.first?.stored("t") == PostgresText.encode(sent))
        #expect(try c.execute("SELECT 1 AS n WHERE false").first("n", as: Int.self) == nil)
    }
}
