import Foundation
import StoreSQL
import Testing
import TestSupport

@testable import SQLiteStore

/// SQLite's side of `StoreSQL`: values bound where they appear, rows read by column name.
@Suite struct SQLiteRowTests {
    private func database() throws -> SQLiteDatabase {
        let path = Fixtures.temporaryDirectory("sqlite-rows").appendingPathComponent("rows.sqlite").path
        let db = try SQLiteDatabase(path: path, mode: .readWriteCreate)
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL, note TEXT, size REAL, data BLOB)")
        return db
    }

    @Test func interpolatedTextIsBoundNeverSpliced() throws {
        let db = try database()
        let name = "x'); DROP TABLE t; --"
        try db.run("INSERT INTO t (name, note, size, data) VALUES (\(name), \(String?.none), \(2.5), \([UInt8]([0, 1, 2])))")
        let rows = try db.query("SELECT data, size, note, name, id FROM t WHERE name = \(name)") { r throws(SQLDecodingError) in
            // Out of column order on purpose: every name is found wherever it sits.
            (name: try r.decode("name", as: String.self), id: try r.decode("id", as: Int64.self), note: try r.decode("note", as: String?.self),
             size: try r.decode("size", as: Double.self), data: try r.decode("data", as: [UInt8].self))
        }
        #expect(rows.count == 1)
        #expect(rows.first?.name == name && rows.first?.id == 1 && rows.first?.note == nil)
        #expect(rows.first?.size == 2.5 && rows.first?.data == [0, 1, 2])
        #expect(try db.scalar("SELECT COUNT(*) AS n FROM t", as: Int.self) == 1)
        #expect(try db.scalar("SELECT id FROM t WHERE id > \(Int64(5))", as: Int64.self) == nil)
    }

    @Test func aMissingColumnOrAnotherTypeIsAnErrorNamingTheColumn() throws {
        let db = try database()
        try db.run("INSERT INTO t (name) VALUES (\("a"))")
        #expect {
            _ = try db.query("SELECT name FROM t") { r throws(SQLDecodingError) in try r.decode("nmae", as: String.self) }
        } throws: { error in
            let e = error as? SQLiteError
            return e?.code == SQLiteCode.mismatch && e?.message.contains("\"nmae\"") == true && e?.sql == "SELECT name FROM t"
        }
        #expect {
            _ = try db.query("SELECT name, note FROM t") { r throws(SQLDecodingError) in try r.decode("note", as: String.self) }
        } throws: { error in
            (error as? SQLiteError)?.message.contains("column \"note\": type mismatch") == true
        }
    }
}
