import CSQLite
import EventStore
import StoreSQL
import Synchronization

// Every call into the SQLite C library lives in this file: result codes become `SQLiteError`
// here and nowhere else, so the rest of the module reads like Swift.

/// A failed SQLite call: the result code, SQLite's own message and the SQL (or step) it was running.
struct SQLiteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, `SQLITE_BUSY`, ...); 1 for errors of our own.
    var code: Int32
    var message: String
    /// The statement or step that failed (`open /var/db/autotrack.sqlite`, `INSERT INTO events ...`).
    var sql: String

    /// The file the error is about when it is not the database itself (a rollups file), and
    /// what to do about it instead of the generic advice.
    var file: String?
    var advice: String?

    init(code: Int32, message: String, sql: String) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The primary result code (`SQLITE_CONSTRAINT` for every constraint failure).
    var primaryCode: Int32 { code & 0xff }

    /// The file is no SQLite database, or a damaged one (`SQLITE_NOTADB`, `SQLITE_CORRUPT`).
    var isDamage: Bool { primaryCode == SQLITE_NOTADB || primaryCode == SQLITE_CORRUPT }

    var description: String {
        let name = String(cString: sqlite3_errstr(code))
        var s = "SQLite error \(code) (\(name)): \(message)"
        if !sql.isEmpty { s += " — while running: \(sql)" }
        if let advice { return s + ". " + advice }
        switch primaryCode {
        case SQLITE_BUSY, SQLITE_LOCKED:
            s += ". Another process holds the database; retry, or stop the other writer."
        case SQLITE_CANTOPEN:
            s += ". Check that the directory exists and is writable."
        case SQLITE_NOTADB, SQLITE_CORRUPT:
            s += ". The file is not an Autotrack database (or is damaged); give another --db path."
        case SQLITE_FULL:
            s += ". The disk is full; free space and retry."
        case SQLITE_READONLY:
            s += ". The database is read-only; check the file's permissions."
        default: break
        }
        return s
    }
}

/// Result codes for errors this module raises itself (not returned by a SQLite call).
enum SQLiteCode {
    static let error = SQLITE_ERROR
    static let misuse = SQLITE_MISUSE
    /// A column read as a type it does not hold (`SQLDecodingError`).
    static let mismatch = SQLITE_MISMATCH
}

extension SQLiteError {
    /// The protocol's error: the kind the collector acts on, and this error's full description.
    var storeError: StoreError {
        let code: StoreError.Code
        switch primaryCode {
        case SQLITE_BUSY, SQLITE_LOCKED, SQLITE_FULL, SQLITE_IOERR, SQLITE_PROTOCOL: code = .unavailable
        case SQLITE_READONLY: code = .readOnly
        case SQLITE_NOTADB, SQLITE_CORRUPT: code = .notAutotrack
        default: code = .failed
        }
        return StoreError(code, description)
    }
}

/// How a database file is opened.
enum SQLiteOpenMode {
    /// Create the file when absent (the server).
    case readWriteCreate
    /// The file must exist (a typo must not create an empty database).
    case readWriteExisting
    /// The file must exist and is never written (reports).
    case readOnly
}

// SQLITE_TRANSIENT is a C macro Swift cannot import: it tells SQLite to copy bound bytes.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One open connection with its prepared-statement cache; not thread-safe (callers lock).
final class SQLiteDatabase {
    private let handle: OpaquePointer
    let path: String
    private var cache: [String: SQLiteStatement] = [:]
    /// The `HotStatement`s prepared on this connection, by slot (nil: not yet); each is also in
    /// `cache`, which finalizes it.
    private var hot: [SQLiteStatement?] = []

    init(path: String, mode: SQLiteOpenMode, busyTimeoutMilliseconds: Int32 = 5_000) throws(SQLiteError) {
        _ = Self.configured
        var db: OpaquePointer?
        // NOMUTEX: the owner serializes access with its own lock, so SQLite's would be a second one.
        // URI: a connection may attach a file read-only as `file:PATH?mode=ro` (RollupFile.swift).
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        switch mode {
        case .readWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readWriteExisting: flags |= SQLITE_OPEN_READWRITE
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        }
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: message, sql: "open \(path)")
        }
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, busyTimeoutMilliseconds)
        self.handle = db
        self.path = path
        // Every connection reads pages in place through a memory map instead of copying each
        // out with a system call: most of a scan's kernel time, and much of an append's (the
        // indexes and rollup tables it updates are read page by page). Only the database file
        // is mapped (the WAL is still read), and only for reading: writes still go through
        // the WAL.
        try execute("PRAGMA mmap_size = \(StoreTuning.readerMapBytes)")
        if mode != .readOnly {
            // The writer keeps the pages of the B-trees an append walks (events' indexes) in its
            // own cache, bigger than SQLite's 2 MiB but bounded, so a collector's memory levels
            // off (`ingest-bench --sustain`); pages beyond it are read through the memory map.
            try execute("PRAGMA cache_size = -\(StoreTuning.writerCacheKiB)")
        }
    }

    /// SQLite's process-wide settings, made once before the first connection: no memory
    /// statistics (a mutex around every allocation of every connection; we read none of them).
    private static let configured: Bool = autotrack_sqlite3_disable_memory_statistics() == SQLITE_OK

    deinit {
        for s in cache.values { s.finalize() }
        sqlite3_close_v2(handle)
    }

    /// Closing the last connection leaves the write-ahead log in place, unchecked-pointed, as a
    /// killed process leaves it (tests of what a crash leaves: an ingest log of layout 1).
    func keepWriteAheadLogOnClose() {
        _ = autotrack_sqlite3_keep_wal_on_close(handle)
    }

    /// Runs one or more statements that return no rows we need (schema, pragmas, BEGIN/COMMIT).
    func execute(_ sql: String) throws(SQLiteError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            throw SQLiteError(code: sqlite3_extended_errcode(handle), message: message, sql: sql)
        }
    }

    /// The statement for `sql`, prepared once per connection and reset for each use.
    func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let s = cache[sql] {
            s.reset()
            return s
        }
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw error(rc, sql) }
        let s = SQLiteStatement(stmt, database: self, sql: sql)
        cache[sql] = s
        return s
    }

    /// The statement of `hot`, found by its slot (an array index) instead of by hashing its
    /// text, prepared on first use; reset for this use.
    func statement(_ hot: HotStatement) throws(SQLiteError) -> SQLiteStatement {
        if hot.slot < self.hot.count, let s = self.hot[hot.slot] {
            s.reset()
            return s
        }
        let s = try statement(hot.sql)
        if self.hot.count <= hot.slot { self.hot += Array(repeating: nil, count: hot.slot + 1 - self.hot.count) }
        self.hot[hot.slot] = s
        return s
    }

    /// Runs `hot` with `rows` bound one after the other (each row's values in the order of its
    /// `?`s, all rows together filling every `?`) for its effect; returns how many rows it
    /// changed. The rows are bound where they are, not copied into one array first.
    @discardableResult
    func run(_ hot: HotStatement, rows: [[SQLValue]]) throws(SQLiteError) -> Int {
        let s = try statement(hot)
        var position: Int32 = 1
        for row in rows {
            try s.bind(row, from: position)
            position += Int32(row.count)
        }
        while try s.step() {}
        s.reset()
        return Int(sqlite3_changes(handle))
    }

    /// Runs `hot` with `buffer.values[range]` bound to its `?`s in order, for its effect;
    /// returns how many rows it changed. The text is bound where it lies in `buffer` (no copy by
    /// SQLite, no string per value) and the statement lets go of it before this returns.
    @discardableResult
    func run(_ hot: HotStatement, _ buffer: SQLiteValueBuffer, values range: Range<Int>) throws(SQLiteError) -> Int {
        let s = try statement(hot)
        return try buffer.bytes.withUnsafeBufferPointer { (text) throws(SQLiteError) -> Int in
            // The statement points into `text` (SQLITE_STATIC): `reset` clears the bindings
            // before the pointer goes, on every path.
            defer { s.reset() }
            try s.bind(buffer.values[range], text: text)
            while try s.step() {}
            return Int(sqlite3_changes(handle))
        }
    }

    /// Runs `hot` with its `?`s bound by `bind` on the statement itself (`SQLiteStatement.bind(_:int:)`,
    /// `bind(_:text:)`), for its effect; returns how many rows it changed. No array of values is
    /// made per execution: the derived data's workers run hundreds of thousands a minute.
    @discardableResult
    func run(_ hot: HotStatement, binding bind: (SQLiteStatement) throws(SQLiteError) -> Void) throws(SQLiteError) -> Int {
        let s = try statement(hot)
        defer { s.reset() }
        try bind(s)
        while try s.step() {}
        return Int(sqlite3_changes(handle))
    }

    /// The first row of `hot`, its `?`s bound by `bind` as in `run(_:binding:)`, as `row` reads
    /// it; nil when there is none.
    func first<T>(
        _ hot: HotStatement, binding bind: (SQLiteStatement) throws(SQLiteError) -> Void, _ row: (SQLiteStatement) throws(SQLDecodingError) -> T
    ) throws(SQLiteError) -> T? {
        let s = try statement(hot)
        defer { s.reset() }
        try bind(s)
        guard try s.step() else { return nil }
        do throws(SQLDecodingError) {
            return try row(s)
        } catch {
            throw SQLiteError(code: SQLiteCode.mismatch, message: error.description, sql: s.sql)
        }
    }

    /// True when `hot`, with `buffer.values[range]` bound to its `?`s in order (their text where
    /// it lies in `buffer`), returns a row.
    func exists(_ hot: HotStatement, _ buffer: SQLiteValueBuffer, values range: Range<Int>) throws(SQLiteError) -> Bool {
        let s = try statement(hot)
        return try buffer.bytes.withUnsafeBufferPointer { (text) throws(SQLiteError) -> Bool in
            defer { s.reset() }  // before `text` goes, as in `run`
            try s.bind(buffer.values[range], text: text)
            return try s.step()
        }
    }

    /// Runs `hot` with `text` (UTF-8) bound to its `?1` where it lies (no copy; the statement lets
    /// go of it before this returns) and gives `body` its first row, nil when it has none.
    func first<R>(_ hot: HotStatement, text: UnsafeBufferPointer<UInt8>, _ body: (SQLiteStatement?) -> R) throws(SQLiteError) -> R {
        let s = try statement(hot)
        defer { s.reset() }
        try s.bind(text: text)
        return body(try s.step() ? s : nil)
    }

    /// Runs `query` and returns each row as `row` reads it (by column name, from the statement
    /// positioned on the row).
    func query<T>(_ query: SQLQuery, _ row: (SQLiteStatement) throws(SQLDecodingError) -> T) throws(SQLiteError) -> [T] {
        var rows: [T] = []
        try stream(query) { s throws(SQLDecodingError) in
            rows.append(try row(s))
            return true
        }
        return rows
    }

    /// Runs `query`, handing the statement positioned on each row to `each` as it is read, until
    /// `each` returns false: constant memory, however many rows.
    func stream(_ query: SQLQuery, _ each: (SQLiteStatement) throws(SQLDecodingError) -> Bool) throws(SQLiteError) {
        let (sql, values) = query.rendered(for: .sqlite)
        try stream(try statement(sql), values, each)
    }

    /// `stream` of `hot` with `values` bound to its `?`s: no SQL text rendered per run.
    func stream(_ hot: HotStatement, _ values: [SQLValue], _ each: (SQLiteStatement) throws(SQLDecodingError) -> Bool) throws(SQLiteError) {
        try stream(try statement(hot), values, each)
    }

    private func stream(_ s: SQLiteStatement, _ values: [SQLValue], _ each: (SQLiteStatement) throws(SQLDecodingError) -> Bool) throws(SQLiteError) {
        defer { s.reset() }
        try s.bind(values)
        while try s.step() {
            do throws(SQLDecodingError) {
                if !(try each(s)) { return }
            } catch {
                throw SQLiteError(code: SQLiteCode.mismatch, message: error.description, sql: s.sql)
            }
        }
    }

    /// The statement of `query`, reset and bound, for a caller that steps it itself (several
    /// cursors at once); the caller resets it when done.
    func prepared(_ query: SQLQuery) throws(SQLiteError) -> SQLiteStatement {
        let (sql, values) = query.rendered(for: .sqlite)
        let s = try statement(sql)
        try s.bind(values)
        return s
    }

    /// The first row's only column as `T`, or nil when there is no row.
    func scalar<T: SQLDecodable>(_ query: SQLQuery, as type: T.Type = T.self) throws(SQLiteError) -> T? {
        var value: T?
        try stream(query) { s throws(SQLDecodingError) in
            value = try s.decode(s.onlyColumn, as: T.self)
            return false
        }
        return value
    }

    /// Runs `query` for its effect; returns how many rows it changed.
    @discardableResult
    func run(_ query: SQLQuery) throws(SQLiteError) -> Int {
        let (sql, values) = query.rendered(for: .sqlite)
        return try run(sql, values)
    }

    /// Runs `sql` with `parameters` (values in the order of its `?`s: a batch's rows, built once
    /// per row) for its effect; returns how many rows it changed. The values are required, so a
    /// literal with interpolations and no values is always an `SQLQuery` (bound), never text.
    @discardableResult
    func run(_ sql: String, _ parameters: [SQLValue]) throws(SQLiteError) -> Int {
        let s = try statement(sql)
        try s.bind(parameters)
        while try s.step() {}
        s.reset()
        return Int(sqlite3_changes(handle))
    }

    /// The rowid of the last row this connection inserted (`events.seq` after an event's INSERT).
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`; a throw rolls back. Returns after COMMIT.
    func transaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        // IMMEDIATE takes the write lock up front, so a busy database fails (after the busy
        // timeout) at BEGIN rather than halfway through a batch.
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// `BEGIN`, then `write` (one that changes nothing) to take the write lock of the files it
    /// names only, up front: with files attached, IMMEDIATE would take every file's. A busy file
    /// fails here (after the busy timeout) rather than halfway through the transaction.
    func beginWriting(lockingWith write: SQLQuery) throws(SQLiteError) {
        try execute("BEGIN")
        do throws(SQLiteError) {
            try run(write)
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Each row of `hot` with `values` bound, as `row` reads it.
    func query<T>(_ hot: HotStatement, _ values: [SQLValue], _ row: (SQLiteStatement) throws(SQLDecodingError) -> T) throws(SQLiteError) -> [T] {
        var rows: [T] = []
        try stream(hot, values) { r throws(SQLDecodingError) in
            rows.append(try row(r))
            return true
        }
        return rows
    }

    /// The first row of `hot` with `values` bound, as `row` reads it; nil when there is none.
    func first<T>(_ hot: HotStatement, _ values: [SQLValue], _ row: (SQLiteStatement) throws(SQLDecodingError) -> T) throws(SQLiteError) -> T? {
        var found: T?
        try stream(hot, values) { r throws(SQLDecodingError) in
            found = try row(r)
            return false
        }
        return found
    }

    fileprivate func error(_ rc: Int32, _ sql: String) -> SQLiteError {
        SQLiteError(code: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }
}

/// A prepared statement owned by its connection's cache; while stepping, the current row
/// (`SQLRow`: columns read by name).
final class SQLiteStatement: SQLRow {
    private let stmt: OpaquePointer
    private unowned let database: SQLiteDatabase
    let sql: String
    /// The result's column names, read once when the statement is prepared.
    private let columnNames: [String]
    /// Where the last name looked up was found: rows are mostly read in column order, so the
    /// next name is looked for after it first (one comparison of two short strings).
    private var nextColumn = 0

    fileprivate init(_ stmt: OpaquePointer, database: SQLiteDatabase, sql: String) {
        self.stmt = stmt
        self.database = database
        self.sql = sql
        columnNames = (0..<sqlite3_column_count(stmt)).map { i in sqlite3_column_name(stmt, i).map { String(cString: $0) } ?? "" }
    }

    /// The position of the result's column `name`.
    func column(_ name: String) throws(SQLDecodingError) -> Int32 {
        let n = columnNames.count
        var i = nextColumn
        for _ in 0..<n {
            if i >= n { i = 0 }  // No `%`: a division per lookup cost a scan a tenth of its time.
            if columnNames[i] == name {
                nextColumn = i + 1
                return Int32(i)
            }
            i += 1
        }
        throw SQLDecodingError(.noSuchColumn, column: name)
    }

    /// The name of the result's one column (for `scalar`).
    var onlyColumn: String { columnNames.first ?? "" }

    fileprivate func finalize() { sqlite3_finalize(stmt) }

    func reset() {
        sqlite3_reset(stmt)
        sqlite3_clear_bindings(stmt)
    }

    /// Binds `x` to parameter `n` (1: the first `?`).
    func bind(_ n: Int32, int x: Int64) throws(SQLiteError) {
        let rc = sqlite3_bind_int64(stmt, n, x)
        guard rc == SQLITE_OK else { throw database.error(rc, sql) }
    }

    /// Binds `text` to parameter `n` (SQLite keeps its own copy), NULL for nil.
    func bind(_ n: Int32, text: String?) throws(SQLiteError) {
        guard var text else {
            let rc = sqlite3_bind_null(stmt, n)
            guard rc == SQLITE_OK else { throw database.error(rc, sql) }
            return
        }
        // With its byte length, not as a C string: a U+0000 inside is stored, not an end.
        let rc = text.withUTF8 { bytes in
            // An empty buffer may have no address, which SQLite would bind as NULL.
            guard let base = bytes.baseAddress else { return sqlite3_bind_text(stmt, n, "", 0, transient) }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { sqlite3_bind_text(stmt, n, $0, Int32(bytes.count), transient) }
        }
        guard rc == SQLITE_OK else { throw database.error(rc, sql) }
    }

    /// Binds `values` to the parameters from `first` on (1: the first `?`).
    func bind(_ values: [SQLValue], from first: Int32 = 1) throws(SQLiteError) {
        for (i, v) in values.enumerated() {
            let n = first + Int32(i)
            let rc: Int32
            switch v {
            case .null: rc = sqlite3_bind_null(stmt, n)
            case .int(let x): rc = sqlite3_bind_int64(stmt, n, x)
            case .double(let x): rc = sqlite3_bind_double(stmt, n, x)
            case .text(let s):
                try bind(n, text: s)
                continue
            case .blob(let b):
                // A zero-length blob, not NULL, even for no bytes.
                rc = b.isEmpty
                    ? sqlite3_bind_zeroblob(stmt, n, 0)
                    : b.withUnsafeBytes { sqlite3_bind_blob(stmt, n, $0.baseAddress, Int32(b.count), transient) }
            }
            guard rc == SQLITE_OK else { throw database.error(rc, sql) }
        }
    }

    /// Binds `values` to the parameters from the first on, their text from `text` without a
    /// copy (SQLITE_STATIC): the caller keeps `text` alive until it resets the statement.
    fileprivate func bind(_ values: ArraySlice<SQLiteValueBuffer.Value>, text: UnsafeBufferPointer<UInt8>) throws(SQLiteError) {
        guard let base = text.baseAddress else { preconditionFailure("SQLiteValueBuffer's bytes always have an address") }
        let chars = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
        var n: Int32 = 1
        for v in values {
            let rc: Int32
            switch v {
            case .null: rc = sqlite3_bind_null(stmt, n)
            case .int(let x): rc = sqlite3_bind_int64(stmt, n, x)
            // With its byte length: a U+0000 inside is stored, not an end; an empty one is '', not NULL.
            case .text(let start, let count): rc = sqlite3_bind_text(stmt, n, chars + start, Int32(count), nil)
            }
            guard rc == SQLITE_OK else { throw database.error(rc, sql) }
            n += 1
        }
    }

    /// Binds `text` (UTF-8, its byte length: an empty one is '', not NULL) to the first
    /// parameter without a copy (SQLITE_STATIC): the caller resets the statement before it goes.
    fileprivate func bind(text: UnsafeBufferPointer<UInt8>) throws(SQLiteError) {
        let rc = text.withMemoryRebound(to: CChar.self) { t in
            guard let base = t.baseAddress else { return sqlite3_bind_text(stmt, 1, "", 0, nil) }
            return sqlite3_bind_text(stmt, 1, base, Int32(t.count), nil)
        }
        guard rc == SQLITE_OK else { throw database.error(rc, sql) }
    }

    /// Advances: true when a row is ready, false when done.
    func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(stmt)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let e = database.error(rc, sql)
            sqlite3_reset(stmt)
            throw e
        }
    }

    /// The current row's column `i` as an integer (0 for NULL), read raw.
    func int64(_ i: Int32) -> Int64 { sqlite3_column_int64(stmt, i) }

    /// True when the current row's column `i` is NULL.
    func isNull(_ i: Int32) -> Bool { sqlite3_column_type(stmt, i) == SQLITE_NULL }

    /// The current row's column `i` as UTF-8 bytes, read raw; valid until the next step. Nil
    /// for NULL.
    func bytes(_ i: Int32) -> UnsafeRawBufferPointer? {
        guard let p = sqlite3_column_text(stmt, i) else { return nil }
        return UnsafeRawBufferPointer(start: p, count: Int(sqlite3_column_bytes(stmt, i)))
    }

    /// The current row's column `i` as a BLOB's bytes, read raw; valid until the next step.
    /// Empty for NULL or an empty BLOB.
    func blob(_ i: Int32) -> UnsafeRawBufferPointer {
        let p = sqlite3_column_blob(stmt, i)
        return UnsafeRawBufferPointer(start: p, count: p == nil ? 0 : Int(sqlite3_column_bytes(stmt, i)))
    }

    /// The current row's column `name`, as SQLite holds it.
    func value(named name: String) throws(SQLDecodingError) -> SQLValue {
        let i = try column(name)
        switch sqlite3_column_type(stmt, i) {
        case SQLITE_INTEGER: return .int(sqlite3_column_int64(stmt, i))
        case SQLITE_FLOAT: return .double(sqlite3_column_double(stmt, i))
        case SQLITE_NULL: return .null
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(stmt, i))
            guard let p = sqlite3_column_blob(stmt, i), count > 0 else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: p, count: count)))
        default:
            guard let p = sqlite3_column_text(stmt, i) else { return .null }
            let count = Int(sqlite3_column_bytes(stmt, i))
            return .text(String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self))
        }
    }
}

/// Values to bind, their text's UTF-8 in one buffer: a batch's event rows, built once by the
/// worker that decoded them and bound from there (`SQLiteDatabase.run(_:_:values:)`) instead of
/// as an array of `SQLValue`s per row, each text a Swift string that SQLite then copies.
struct SQLiteValueBuffer: Sendable {
    enum Value: Sendable {
        case null
        case int(Int64)
        /// `count` bytes of `bytes` from `start`.
        case text(start: Int, count: Int)
    }

    private(set) var values: [Value] = []
    /// Starts with one unused byte, so that it always has an address: an empty text bound from
    /// no address would be NULL.
    private(set) var bytes: [UInt8] = [0]

    /// Room for `capacity` values (and about as many short texts).
    init(values capacity: Int) {
        values.reserveCapacity(capacity)
        bytes.reserveCapacity(capacity * 16)
    }

    var count: Int { values.count }

    /// Stores `string`'s bytes and returns the value that binds them (NULL for nil), to append
    /// once or many times.
    mutating func text(_ string: String?) -> Value {
        guard var string else { return .null }
        let start = bytes.count
        string.withUTF8 { bytes.append(contentsOf: $0) }
        return .text(start: start, count: bytes.count - start)
    }

    mutating func append(_ value: Value) { values.append(value) }

    mutating func append(text string: String?) { values.append(text(string)) }

    /// Stores the UTF-8 bytes `utf8` and appends the value that binds them (NULL for nil).
    mutating func append(utf8: UnsafeBufferPointer<UInt8>?) {
        guard let utf8 else { return values.append(.null) }
        let start = bytes.count
        bytes.append(contentsOf: utf8)
        values.append(.text(start: start, count: utf8.count))
    }
}

/// An SQL text the append path runs over and over (a batch's event INSERTs, ~1.5 KB of text):
/// each connection finds its statement by `slot`, a number given once per text, instead of
/// hashing the text on every run (`SQLiteDatabase.statement(_:)`). Make one per text, once (a
/// `static let`): every one made takes a slot in each connection that runs it.
struct HotStatement: Sendable {
    let sql: String
    let slot: Int

    private static let slots = Atomic<Int>(0)

    init(_ sql: String) {
        self.sql = sql
        slot = Self.slots.add(1, ordering: .relaxed).oldValue
    }
}
