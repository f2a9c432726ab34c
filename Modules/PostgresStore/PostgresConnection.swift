import CLibPQ
import StoreSQL
import Synchronization
import SystemCalls

// Every call into libpq lives in this file and in PostgresConnection+Copy.swift (COPY FROM
// STDIN): failures become `PostgresError` there and nowhere else. libpq calls block (network round trips, the server's fsync), so they run only on the
// caller's thread: the ATLP server's worker threads, a command's main thread, a benchmark's
// threads, never the Swift concurrency pool.

/// The rows a statement returned, every value in PostgreSQL's text format (nil for NULL), as
/// stored (`PostgresText`). Iterated, each row is a `PostgresRow`, read by column name.
struct PostgresRows: Sendable, RandomAccessCollection {
    var rows: [[String?]]
    /// Rows inserted, updated or deleted (`PQcmdTuples`), 0 for other statements.
    var affected: Int
    /// Each column's place by name (the first column of a name), built once per result.
    var columns: [String: Int] = [:]
    /// The statement that returned them, for messages.
    var statement = ""

    var startIndex: Int { rows.startIndex }
    var endIndex: Int { rows.endIndex }
    subscript(i: Int) -> PostgresRow { PostgresRow(values: rows[i], columns: columns) }

    /// Each row as `body` reads it; a missing column or a value of another type fails as the
    /// statement's error.
    func decode<T>(_ body: (PostgresRow) throws(SQLDecodingError) -> T) throws(PostgresError) -> [T] {
        var all: [T] = []
        all.reserveCapacity(count)
        for row in self { all.append(try reading(row, body)) }
        return all
    }

    /// The first row's column `name` as `T`; nil when there is no row.
    func first<T: SQLDecodable>(_ name: String, as type: T.Type = T.self) throws(PostgresError) -> T? {
        guard let row = first else { return nil }
        return try reading(row) { r throws(SQLDecodingError) in try r.decode(name, as: T.self) }
    }

    /// Reads the rows with `body` until it returns false; returns false when it did.
    func readEach(_ body: (PostgresRow) throws(SQLDecodingError) -> Bool) throws(PostgresError) -> Bool {
        for row in self where !(try reading(row, body)) { return false }
        return true
    }

    private func reading<T>(_ row: PostgresRow, _ body: (PostgresRow) throws(SQLDecodingError) -> T) throws(PostgresError) -> T {
        do throws(SQLDecodingError) {
            return try body(row)
        } catch {
            throw PostgresError(code: .statement, message: error.description, statement: statement)
        }
    }
}

/// One row of a result, read by column name (`SQLRow`): text comes back decoded
/// (`PostgresText.decode`), so `decode("page", as: String.self)` is the page as sent; numbers are
/// PostgreSQL's text form, which `StoreSQL`'s decoders read.
struct PostgresRow: SQLRow, Sendable {
    let values: [String?]
    let columns: [String: Int]

    func value(named name: String) throws(SQLDecodingError) -> SQLValue {
        guard let text = try stored(name) else { return .null }
        return .text(PostgresText.decode(text))
    }

    /// The column's text as stored (escaped, `PostgresText`), for comparing stored bytes.
    func stored(_ name: String) throws(SQLDecodingError) -> String? {
        guard let i = columns[name] else { throw SQLDecodingError(.noSuchColumn, column: name) }
        return values[i]
    }
}

/// One open connection with the statements it has prepared.
///
/// The pool hands a connection to one caller at a time; the Mutex makes that a checked fact
/// (and the class Sendable, so the pool can keep it) at the cost of an uncontended lock per call.
final class PostgresConnection: Sendable {
    /// The libpq connection; PostgresConnection+Copy.swift uses it too.
    let link: Mutex<PostgresLink>
    /// Where it connects, for messages (`host=/tmp/pg port=5433 dbname=autotrack`).
    let target: String

    /// Connects with `uri` (a libpq URI or `key=value` string).
    init(uri: String, applicationName: String = "autotrack-collector") throws(PostgresError) {
        let l = try PostgresLink(uri: uri, applicationName: applicationName)
        target = l.target
        link = Mutex(l)
    }

    /// False once the connection broke (server stopped, restarted, network) or is inside a transaction.
    var isUsable: Bool { link.withLock { $0.isUsable } }

    /// Runs one statement with text parameters (`$1`, `$2`... ; nil is NULL), each of the type
    /// the server infers for its place.
    @discardableResult
    func execute(_ sql: String, _ parameters: [String?]) throws(PostgresError) -> PostgresRows {
        try link.withLock { l throws(PostgresError) in try l.execute(sql, parameters) }
    }

    /// Runs `query`, each interpolated value bound as `$n` with its type: `.int` as `bigint`,
    /// `.double` as `double precision`, `.text` as `text`, `.blob` as `bytea` (all in binary
    /// format), `.null` untyped. Text is sent as given: a value compared with stored text is
    /// encoded by the caller (`PostgresText.encode`).
    @discardableResult
    func execute(_ query: SQLQuery) throws(PostgresError) -> PostgresRows {
        let (sql, values) = query.rendered(for: .postgres)
        return try link.withLock { l throws(PostgresError) in try l.execute(sql, PostgresParameters(values)) }
    }

    /// Runs several statements separated by `;`, without parameters (a migration).
    func executeScript(_ sql: String) throws(PostgresError) {
        try link.withLock { l throws(PostgresError) in try l.executeScript(sql) }
    }

    /// Runs a statement prepared once per connection under `name` (the server plans it once),
    /// its parameters arrays in binary format.
    @discardableResult
    func executePrepared(_ name: String, _ sql: String, _ parameters: PostgresBinaryArrays) throws(PostgresError) -> PostgresRows {
        try link.withLock { l throws(PostgresError) in try l.executePrepared(name, sql, parameters) }
    }

    /// Runs `body` between BEGIN and COMMIT; rolls back when it throws.
    func transaction<T>(_ body: () throws(PostgresError) -> T) throws(PostgresError) -> T {
        try execute("BEGIN")
        do throws(PostgresError) {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
        }
    }

    /// Checks that `uri` parses as libpq connection options, without connecting.
    static func validate(uri: String) throws(PostgresError) { try PostgresLink.validate(uri: uri) }
}

/// The libpq connection itself; used only under `PostgresConnection`'s lock.
final class PostgresLink {
    let handle: OpaquePointer
    /// Names of the statements prepared on this connection.
    private var prepared: Set<String> = []
    /// Where it connects, for messages (`host=/tmp/pg port=5433 dbname=autotrack`).
    let target: String

    /// Connects with `uri` (a libpq URI or `key=value` string). A missing `connect_timeout`
    /// becomes 5 s, so an unreachable server fails a call instead of hanging it.
    init(uri: String, applicationName: String = "autotrack-collector") throws(PostgresError) {
        // NULL-terminated keyword and value arrays.
        let keys: [String?] = ["connect_timeout", "application_name", "dbname", nil]
        let values: [String?] = ["5", applicationName, uri, nil]
        let conn: OpaquePointer? = Self.withCStrings(keys) { k in
            Self.withCStrings(values) { v in PQconnectdbParams(k, v, 1) }
        }
        guard let conn else {
            throw PostgresError(code: .connection, message: "libpq could not allocate a connection", statement: "connect")
        }
        let host = PQhost(conn).map { String(cString: $0) } ?? "?"
        let port = PQport(conn).map { String(cString: $0) } ?? "?"
        let db = PQdb(conn).map { String(cString: $0) } ?? "?"
        target = "host=\(host) port=\(port) dbname=\(db)"
        guard PQstatus(conn) == CONNECTION_OK else {
            let message = Self.message(PQerrorMessage(conn))
            PQfinish(conn)
            throw PostgresError(code: .connection, message: message, statement: "connect to \(target)")
        }
        handle = conn
        // NOTICEs (e.g. "relation already exists, skipping") are not errors: keep them off stderr.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit { PQfinish(handle) }

    /// False once the connection broke (server stopped, restarted, network); the pool drops it.
    var isUsable: Bool { PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) == PQTRANS_IDLE }

    /// Checks that `uri` parses as libpq connection options, without connecting.
    static func validate(uri: String) throws(PostgresError) {
        var error: UnsafeMutablePointer<CChar>?
        let options = PQconninfoParse(uri, &error)
        defer {
            if let options { PQconninfoFree(options) }
            if let error { PQfreemem(error) }
        }
        if options == nil {
            throw PostgresError(
                code: .usage, message: "not a valid PostgreSQL URI (\(message(error)))",
                statement: "parse \(uri)")
        }
    }

    /// Runs one statement with text parameters (`$1`, `$2`... ; nil is NULL).
    @discardableResult
    func execute(_ sql: String, _ parameters: [String?] = []) throws(PostgresError) -> PostgresRows {
        let result = Self.withCStrings(parameters) { p in
            PQexecParams(handle, sql, Int32(parameters.count), nil, p, nil, nil, 0)
        }
        return try rows(result, sql)
    }

    /// Runs one statement with typed binary parameters (`PostgresParameters`).
    func execute(_ sql: String, _ parameters: PostgresParameters) throws(PostgresError) -> PostgresRows {
        let count = Int32(parameters.types.count)
        let result = parameters.bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            let values: [UnsafePointer<CChar>?] = parameters.ranges.map { r in r.map { base + $0.lowerBound } }
            let lengths = parameters.ranges.map { Int32($0?.count ?? 0) }
            let formats = [Int32](repeating: 1, count: parameters.types.count)
            return PQexecParams(handle, sql, count, parameters.types, values, lengths, formats, 0)
        }
        return try rows(result, sql)
    }

    func executeScript(_ sql: String) throws(PostgresError) {
        _ = try rows(PQexec(handle, sql), sql)
    }

    @discardableResult
    func executePrepared(_ name: String, _ sql: String, _ parameters: PostgresBinaryArrays) throws(PostgresError) -> PostgresRows {
        let count = Int32(parameters.ranges.count)
        if !prepared.contains(name) {
            _ = try rows(PQprepare(handle, name, sql, count, nil), "PREPARE \(name): \(sql)")
            prepared.insert(name)
        }
        let lengths = parameters.ranges.map { Int32($0.count) }
        let formats = [Int32](repeating: 1, count: parameters.ranges.count)
        let result = parameters.bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            let values: [UnsafePointer<CChar>?] = parameters.ranges.map { base + $0.lowerBound }
            return PQexecPrepared(handle, name, count, values, lengths, formats, 0)
        }
        return try rows(result, sql)
    }

    /// Turns a result into rows, or its error into a `PostgresError`; frees the result.
    func rows(_ result: OpaquePointer?, _ sql: String) throws(PostgresError) -> PostgresRows {
        guard let result else {
            throw PostgresError(code: .connection, message: Self.message(PQerrorMessage(handle)), statement: sql)
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            let n = Int(PQntuples(result))
            let fields = Int(PQnfields(result))
            var rows: [[String?]] = []
            rows.reserveCapacity(n)
            for r in 0..<n {
                var row: [String?] = []
                row.reserveCapacity(fields)
                for f in 0..<fields {
                    if PQgetisnull(result, Int32(r), Int32(f)) != 0 {
                        row.append(nil)
                    } else {
                        row.append(String(cString: PQgetvalue(result, Int32(r), Int32(f))))
                    }
                }
                rows.append(row)
            }
            let affected = PQcmdTuples(result).map { Int(String(cString: $0)) ?? 0 } ?? 0
            var columns: [String: Int] = [:]
            for f in (0..<fields).reversed() {
                if let name = PQfname(result, Int32(f)) { columns[String(cString: name)] = f }
            }
            return PostgresRows(rows: rows, affected: affected, columns: columns, statement: sql)
        default:
            // PG_DIAG_SQLSTATE is the character 'C' (a macro Swift does not import as a value).
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let primary = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
            let broken = PQstatus(handle) != CONNECTION_OK
            let message = primary ?? Self.message(PQresultErrorMessage(result))
            let fallback = message.isEmpty ? Self.message(PQerrorMessage(handle)) : message
            throw PostgresError(
                code: broken && state == nil ? .connection : .statement, message: fallback, sqlState: state, statement: sql)
        }
    }

    static func message(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "" }
        return String(cString: text).trimmingCharacters(in: " \n")
    }

    private static func message(_ text: UnsafeMutablePointer<CChar>?) -> String {
        message(UnsafePointer(text))
    }

    /// Calls `body` with a C array of the strings (NULL for nil), valid for the call only.
    private static func withCStrings<R>(
        _ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R
    ) -> R {
        if strings.isEmpty { return body(nil) }
        let copies: [UnsafeMutablePointer<CChar>?] = strings.map { s in s.flatMap { strdup($0) } }
        defer { for c in copies { free(c) } }
        let pointers = copies.map { $0.map { UnsafePointer($0) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let c = s.last, set.contains(c) { s.removeLast() }
        while let c = s.first, set.contains(c) { s.removeFirst() }
        return String(s)
    }
}
