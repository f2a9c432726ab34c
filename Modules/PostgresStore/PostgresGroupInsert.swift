import EventStore

/// Writes a group of batches with one statement, in one implicit transaction: every column
/// travels as one binary array parameter (`PostgresBinaryArrays`), `unnest` turns them back into
/// rows, and CTEs insert the ids (`event_ids`, `ON CONFLICT (app_key, id) DO NOTHING RETURNING
/// seq`), the events whose ids they took, the rejected events and one `batches` row per batch,
/// then answer how many events of each batch were stored (the returned `seq`s are exactly the
/// rows this group stored). The day partitions its events need exist first (`PostgresDayPartitions`). One round trip and
/// one commit per group, however many batches and events it holds. The sequence is looked up
/// once per statement, not per row (per row, `pg_get_serial_sequence` took a sixth of the statement).
///
/// Exactly once across collectors: two transactions inserting the same `(app_key, id)` are
/// ordered by `event_ids`' primary key (the second waits for the first to commit, then skips the row).
/// Every group inserts its events in one global order (app key, then id, byte order), so two
/// groups never wait for each other in a cycle: no deadlock between collectors. `seq` is still
/// arrival order: it is drawn for the rows in batch order before they are inserted in key order.
/// The `seq`s are drawn under `PostgresRollups.ingestLock` (shared), which the rollup
/// builder takes exclusively to learn how far every drawn `seq` is settled.
enum PostgresGroupInsert {
    static let name = "autotrack_group_insert"

    /// The batches are `$1`…`$8`, the rejected events `$9`…`$11`, the events `$12`…`$26`.
    static let sql = """
        WITH \(batchRows), ev AS (
            SELECT * FROM unnest($12::int[], $13::text[], $14::bigint[], $15::text[], $16::text[], $17::text[], $18::text[],
                                 $19::text[], $20::text[], $21::bigint[], $22::text[], $23::text[], $24::text[], $25::bigint[],
                                 $26::int[])
                WITH ORDINALITY AS t(b, id, ts, type, name, page, path, view_id, session, duration, props, user_id,
                                     device_id, corrected_ts, rank, ord)
        ), ingesting AS MATERIALIZED (
            SELECT pg_advisory_xact_lock_shared(\(PostgresRollups.ingestLock))
        ), numbered AS MATERIALIZED (
            SELECT ev.*, nextval((SELECT pg_get_serial_sequence('events', 'seq')::regclass)) AS seq FROM ev, ingesting ORDER BY ev.ord
        ), ids AS (
            INSERT INTO event_ids (app_key, id, seq)
            SELECT bat.app_key, n.id, n.seq FROM numbered AS n JOIN bat ON bat.b = n.b ORDER BY n.rank
            ON CONFLICT (app_key, id) DO NOTHING
            RETURNING seq
        ), ins AS (
            INSERT INTO events (seq, app_key, id, ts, type, name, page, path, view_id, session, duration, props, app_version,
                                received_at, user_id, device_id, corrected_ts)
            SELECT n.seq, bat.app_key, n.id, n.ts, n.type, n.name, n.page, n.path, n.view_id, n.session, n.duration,
                   n.props::json, bat.app_version, bat.received_at, n.user_id, n.device_id, n.corrected_ts
            FROM numbered AS n JOIN bat ON bat.b = n.b JOIN ids ON ids.seq = n.seq
        ), stored AS (
            SELECT bat.b, count(won.seq) AS n
            FROM bat LEFT JOIN (ids JOIN numbered AS won ON won.seq = ids.seq) ON won.b = bat.b GROUP BY bat.b
        ), rej AS (
            \(rejectedInsert)
        ), done AS (
            INSERT INTO batches (app_key, app_version, agent, batch, stored, duplicates, rejected, received_at, sent_at)
            SELECT bat.app_key, bat.app_version, bat.agent, bat.batch, stored.n, bat.valid - stored.n, bat.rejected,
                   bat.received_at, bat.sent_at
            FROM bat JOIN stored ON stored.b = bat.b ORDER BY bat.b
        )
        SELECT b, n FROM stored ORDER BY b
        """

    /// The CTE `bat`: the batches of `$1`…`$8`, numbered `b` from 1.
    static let batchRows = """
        bat AS (
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::int[], $8::int[])
                WITH ORDINALITY AS t(app_key, app_version, agent, batch, received_at, sent_at, valid, rejected, b)
        )
        """

    /// Inserts the rejected events of `$9`…`$11` (batch, raw text, reason) with their batch's
    /// columns from `bat`.
    static let rejectedInsert = """
        INSERT INTO rejected (app_key, app_version, raw, reason, received_at)
            SELECT bat.app_key, bat.app_version, r.raw, r.reason, bat.received_at
            FROM unnest($9::int[], $10::text[], $11::text[]) WITH ORDINALITY AS r(b, raw, reason, ord)
            JOIN bat ON bat.b = r.b ORDER BY r.ord
        """

    /// A group's valid events in arrival order (group order, then batch order), each with its
    /// batch (from 1) and its rank in the insertion order: by app key, then id (bytes), then arrival.
    struct Rows {
        var rows: [(b: Int, appKey: String, row: PostgresPendingBatch.EventRow)] = []
        var rank: [Int] = []

        init(_ group: [PostgresPendingBatch]) {
            rows.reserveCapacity(group.reduce(0) { $0 + $1.events.count })
            for (i, batch) in group.enumerated() {
                for row in batch.events { rows.append((i + 1, batch.appKey, row)) }
            }
            let order = rows.indices.sorted { i, j in
                let x = rows[i], y = rows[j]
                if x.appKey != y.appKey { return x.appKey.utf8.lexicographicallyPrecedes(y.appKey.utf8) }
                if x.row.id != y.row.id { return x.row.id.utf8.lexicographicallyPrecedes(y.row.id.utf8) }
                return i < j
            }
            rank = [Int](repeating: 0, count: rows.count)
            for (r, i) in order.enumerated() { rank[i] = r }
        }
    }

    /// The batches' parameters `$1`…`$8` and the rejected events' `$9`…`$11`: batches numbered
    /// from 1 in group order.
    static func batchParameters(_ group: [PostgresPendingBatch], capacity: Int) -> PostgresBinaryArrays {
        var rejected: [(b: Int, raw: String, reason: String)] = []
        for (i, batch) in group.enumerated() {
            for r in batch.rejected { rejected.append((i + 1, r.raw, r.reason)) }
        }
        var p = PostgresBinaryArrays(capacity: capacity + rejected.count * 200 + group.count * 100 + 1_024)
        p.text(group.lazy.map(\.appKey))
        p.text(group.lazy.map(\.appVersion))
        p.text(group.lazy.map(\.agent))
        p.text(group.lazy.map(\.label))
        p.int8(group.lazy.map(\.receivedAt))
        p.int8(group.lazy.map(\.sentAt))
        p.int4(group.lazy.map(\.events.count))
        p.int4(group.lazy.map(\.rejected.count))
        p.int4(rejected.lazy.map(\.b))
        p.text(rejected.lazy.map(\.raw))
        p.text(rejected.lazy.map(\.reason))
        return p
    }

    /// The statement's parameters for `group`.
    static func parameters(_ group: [PostgresPendingBatch]) -> PostgresBinaryArrays {
        let r = Rows(group)
        let rows = r.rows
        var p = batchParameters(group, capacity: rows.count * 400)
        p.int4(rows.lazy.map(\.b))
        p.text(rows.lazy.map(\.row.id))
        p.int8(rows.lazy.map(\.row.ts))
        p.text(rows.lazy.map(\.row.type))
        p.text(rows.lazy.map(\.row.name))
        p.text(rows.lazy.map(\.row.page))
        p.text(rows.lazy.map(\.row.path))
        p.text(rows.lazy.map(\.row.viewId))
        p.text(rows.lazy.map(\.row.session))
        p.int8(rows.lazy.map(\.row.duration))
        p.text(rows.lazy.map(\.row.props))
        p.text(rows.lazy.map(\.row.user))
        p.text(rows.lazy.map(\.row.device))
        p.int8(rows.lazy.map(\.row.correctedTime))
        p.int4(r.rank)
        return p
    }

    /// Turns the statement's `(b, n)` rows into each batch's outcome, in group order.
    static func outcomes(_ group: [PostgresPendingBatch], _ result: PostgresRows) -> [BatchOutcome] {
        var stored = [Int](repeating: 0, count: group.count)
        for row in result.rows {
            guard let b = row[0].flatMap({ Int($0) }), (1...group.count).contains(b) else { continue }
            stored[b - 1] = row[1].flatMap { Int($0) } ?? 0
        }
        return zip(group, stored).map { batch, n in
            BatchOutcome(
                stored: n, duplicates: batch.events.count - n, rejected: batch.rejected.count,
                rejections: batch.rejected.map { PostgresText.decode($0.reason) })
        }
    }

    /// Stores `group` on `c` and returns each batch's outcome, in group order; throws when nothing was stored.
    static func run(
        _ group: [PostgresPendingBatch], partitions: PostgresDayPartitions, on c: PostgresConnection
    ) throws(PostgresError) -> [BatchOutcome] {
        try partitions.prepare(group, on: c)
        try PostgresDeviceLinks.record(group, on: c)
        return try insert(group, on: c)
    }

    /// The statement alone, once the group's day partitions and device links are there.
    static func insert(_ group: [PostgresPendingBatch], on c: PostgresConnection) throws(PostgresError) -> [BatchOutcome] {
        outcomes(group, try c.executePrepared(name, sql, parameters(group)))
    }
}
