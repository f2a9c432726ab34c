import CLibPQ
import Synchronization

// COPY FROM STDIN through libpq (PQputCopyData / PQputCopyEnd / PQgetResult): the bulk path of
// the group commit (PostgresCopyInsert). Like PostgresConnection.swift, the only place these
// libpq calls live; failures become `PostgresError` here.

extension PostgresConnection {
    /// Runs `sql`, a `COPY … FROM STDIN` statement, sending `data` as its input (in the format the
    /// statement names, here binary: `PostgresBinaryCopy`); returns the rows copied. A failure
    /// anywhere (the statement, a row the server refuses, the connection) throws, and the server
    /// has copied nothing (inside a transaction, the transaction is then aborted).
    @discardableResult
    func copyIn(_ sql: String, _ data: PostgresBinaryCopy) throws(PostgresError) -> Int {
        try link.withLock { l throws(PostgresError) in try l.copyIn(sql, data.bytes) }
    }
}

extension PostgresLink {
    func copyIn(_ sql: String, _ data: [UInt8]) throws(PostgresError) -> Int {
        guard let start = PQexec(handle, sql) else {
            throw PostgresError(code: .connection, message: Self.message(PQerrorMessage(handle)), statement: sql)
        }
        guard PQresultStatus(start) == PGRES_COPY_IN else {
            _ = try rows(start, sql)  // Throws the server's error and frees the result.
            throw PostgresError(code: .usage, message: "not a COPY … FROM STDIN statement", statement: sql)
        }
        PQclear(start)
        var sendFailure: String?
        data.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let n = min(PostgresTuning.copyChunk, buffer.count - offset)
                let sent = UnsafeRawPointer(base + offset).withMemoryRebound(to: CChar.self, capacity: n) {
                    PQputCopyData(handle, $0, Int32(n))
                }
                if sent != 1 {
                    sendFailure = Self.message(PQerrorMessage(handle))
                    return
                }
                offset += n
            }
        }
        // With an error message the server aborts the COPY (nothing copied).
        if PQputCopyEnd(handle, sendFailure == nil ? nil : "the client could not send the rows") != 1 {
            sendFailure = sendFailure ?? Self.message(PQerrorMessage(handle))
        }
        // The COPY's own result, then NULL: read them all, keeping the first error.
        var outcome: Result<PostgresRows, PostgresError>?
        while let result = PQgetResult(handle) {
            do throws(PostgresError) {
                let r = try rows(result, sql)
                if outcome == nil { outcome = .success(r) }
            } catch {
                if case .failure = outcome {} else { outcome = .failure(error) }
            }
        }
        if let sendFailure {
            throw PostgresError(code: .connection, message: sendFailure, statement: sql)
        }
        guard let outcome else {
            throw PostgresError(code: .connection, message: Self.message(PQerrorMessage(handle)), statement: sql)
        }
        return try outcome.get().affected
    }
}
