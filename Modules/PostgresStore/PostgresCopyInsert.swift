import EventStore

/// Which statements a group commit writes with (`PostgresEventStore`'s `ingest`): benchmarks
/// compare them in one run (`pg-bench`); docs/postgres.md "Ingest" has the figures.
public enum PostgresIngest: Sendable, CaseIterable {
    /// One statement, every column as a binary array parameter (`PostgresGroupInsert`).
    case groupInsert
    /// The ids and the events by `COPY` straight into `event_ids` and `events`; a group holding
    /// an id already stored goes through the group insert instead (`PostgresCopyInsert.run`).
    case copy
}

/// A group commit through `COPY … FROM STDIN (FORMAT binary)` (`PostgresBinaryCopy`), with the
/// same guarantees as `PostgresGroupInsert`: each `(app_key, id)` stored once across collectors
/// (`event_ids`' primary key, rows in one global key order), `seq`s drawn under the shared
/// ingest lock, rejected events and one `batches` row per batch in the same transaction, each
/// batch's stored count returned.
enum PostgresCopyInsert {
    /// `id` … `props`, `user_id`, `device_id`, `corrected_ts` of `row`, in `events`' column order.
    private static func fields(_ row: PostgresPendingBatch.EventRow, into data: inout PostgresBinaryCopy) {
        data.text(row.id)
        data.int8(row.ts)
        data.text(row.type)
        data.text(row.name)
        data.text(row.page)
        data.text(row.path)
        data.text(row.viewId)
        data.text(row.session)
        data.int8(row.duration)
        data.text(row.props)
        data.text(row.user)
        data.text(row.device)
        data.int8(row.correctedTime)
    }

    static let startName = "autotrack_copy_start"
    /// The rejected events and one `batches` row per batch (every valid event stored), then one
    /// new `seq` per valid event, drawn under the shared ingest lock (held until the transaction
    /// ends): what a group writes besides its ids and events, and its `seq`s, in one round trip.
    static let startSQL = """
        WITH \(PostgresGroupInsert.batchRows), rej AS (
            \(PostgresGroupInsert.rejectedInsert)
        ), done AS (
            INSERT INTO batches (app_key, app_version, agent, batch, stored, duplicates, rejected, received_at, sent_at)
            SELECT app_key, app_version, agent, batch, valid, 0, rejected, received_at, sent_at FROM bat ORDER BY b
        ), ingesting AS MATERIALIZED (
            SELECT pg_advisory_xact_lock_shared(\(PostgresRollups.ingestLock))
        )
        SELECT nextval((SELECT pg_get_serial_sequence('events', 'seq')::regclass))
        FROM ingesting, generate_series(1, (SELECT sum(valid) FROM bat)::int)
        """

    /// The unique violation `COPY` into `event_ids` meets when an id is already stored (or being stored).
    static let uniqueViolation = "23505"

    /// One transaction: the rejected events and `batches` rows written and the `seq`s drawn, the
    /// ids copied into `event_ids` in key order, the events into `events` in arrival order. When an id
    /// of the group is already stored (a resend, another collector), `event_ids` refuses the
    /// copy, the transaction rolls back, and the group insert stores the group instead, skipping
    /// the duplicates; a group holding an id twice goes there at once.
    static func run(
        _ group: [PostgresPendingBatch], partitions: PostgresDayPartitions, on c: PostgresConnection
    ) throws(PostgresError) -> [BatchOutcome] {
        let r = PostgresGroupInsert.Rows(group)
        var order = [Int](repeating: 0, count: r.rows.count)
        for (i, rank) in r.rank.enumerated() { order[rank] = i }
        let repeats = zip(order, order.dropFirst()).contains { i, j in
            r.rows[i].appKey == r.rows[j].appKey && r.rows[i].row.id == r.rows[j].row.id
        }
        if repeats || r.rows.isEmpty { return try PostgresGroupInsert.run(group, partitions: partitions, on: c) }
        try partitions.prepare(group, on: c)
        try PostgresDeviceLinks.record(group, on: c)
        let parameters = PostgresGroupInsert.batchParameters(group, capacity: 0)
        do throws(PostgresError) {
            return try c.transaction { () throws(PostgresError) -> [BatchOutcome] in
                let seqs = try c.executePrepared(startName, startSQL, parameters).rows.compactMap { $0[0].flatMap { Int64($0) } }.sorted()
                guard seqs.count == r.rows.count else {
                    throw PostgresError(code: .statement, message: "drew \(seqs.count) seqs for \(r.rows.count) events", statement: startSQL)
                }
                var ids = PostgresBinaryCopy(capacity: r.rows.count * 64)
                for i in order {
                    ids.row(3)
                    ids.text(r.rows[i].appKey)
                    ids.text(r.rows[i].row.id)
                    ids.int8(seqs[i])
                }
                ids.end()
                try c.copyIn("COPY event_ids (app_key, id, seq) FROM STDIN (FORMAT binary)", ids)
                var events = PostgresBinaryCopy(capacity: r.rows.count * 400)
                for (i, row) in r.rows.enumerated() {
                    let batch = group[row.b - 1]
                    events.row(17)
                    events.int8(seqs[i])
                    events.text(row.appKey)
                    fields(row.row, into: &events)
                    events.text(batch.appVersion)
                    events.int8(batch.receivedAt)
                }
                events.end()
                try c.copyIn(
                    """
                    COPY events (seq, app_key, id, ts, type, name, page, path, view_id, session, duration, props, user_id,
                                 device_id, corrected_ts, app_version, received_at) FROM STDIN (FORMAT binary)
                    """, events)
                return group.map { batch in
                    BatchOutcome(
                        stored: batch.events.count, duplicates: 0, rejected: batch.rejected.count,
                        rejections: batch.rejected.map { PostgresText.decode($0.reason) })
                }
            }
        } catch where error.sqlState == uniqueViolation {
            return try PostgresGroupInsert.insert(group, on: c)
        }
    }
}
