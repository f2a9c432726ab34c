import EventStore
import StoreSQL
import Synchronization

/// `events` partitioned by the UTC day of the corrected time (schema migration 5,
/// docs/postgres.md "Day partitions"), so `prune` drops whole days.
///
/// - Each day from `PostgresTuning.partitionDaysBack` days before today to `partitionDaysAhead` after gets its own partition
///   `events_YYYYMMDD`, created by the first group that stores an event of that day
///   (`autotrack_event_day`, under an advisory lock, so collectors create it once). Any other
///   day (a clock years off) goes to the default partition `events_other`: no client can make
///   thousands of tables. A day partition created later takes its rows out of `events_other`.
/// - Exactly once: PostgreSQL's unique indexes on a partitioned table must hold the partition
///   key, and a resent event may carry another corrected time, so uniqueness of
///   `(app_key, id)` lives in the one unpartitioned table `event_ids` (with the row's `seq`),
///   which a group insert fills first (`ON CONFLICT DO NOTHING`); only the rows it took go
///   into `events`.
/// - `seq` comes from the sequence `events_seq_number`, continuing the old identity's.
final class PostgresDayPartitions: Sendable {
    /// The advisory lock that serializes creating and dropping partitions.
    static let lock: Int64 = 0x61_7574_6f70_7274

    /// Migration 5: the partitioned table, filled from the old one in the migration's
    /// transaction (days in the window get their partitions first), the old table dropped.
    static let migration = """
        DROP VIEW agg_source;
        ALTER TABLE events RENAME TO events_unpartitioned;
        ALTER INDEX events_corrected_ts RENAME TO events_unpartitioned_corrected_ts;
        CREATE SEQUENCE events_seq_number;
        SELECT setval('events_seq_number', GREATEST(
            COALESCE(pg_sequence_last_value(pg_get_serial_sequence('events_unpartitioned', 'seq')::regclass), 0),
            COALESCE((SELECT max(seq) FROM events_unpartitioned), 0)) + 1, false);

        CREATE TABLE events (
            seq          bigint NOT NULL DEFAULT nextval('events_seq_number'),
            app_key      text COLLATE "C" NOT NULL,
            id           text COLLATE "C" NOT NULL,
            ts           bigint NOT NULL,
            type         text   NOT NULL,
            name         text   NOT NULL,
            page         text,
            path         text,
            view_id      text,
            session      text,
            duration     bigint,
            props        json   NOT NULL DEFAULT '{}',
            app_version  text,
            received_at  bigint NOT NULL,
            user_id      text,
            device_id    text,
            corrected_ts bigint NOT NULL
        ) PARTITION BY RANGE (corrected_ts);
        ALTER SEQUENCE events_seq_number OWNED BY events.seq;
        CREATE TABLE events_other PARTITION OF events DEFAULT;

        CREATE TABLE event_ids (
            app_key text COLLATE "C" NOT NULL,
            id      text COLLATE "C" NOT NULL,
            seq     bigint NOT NULL,
            PRIMARY KEY (app_key, id)
        );

        CREATE FUNCTION autotrack_event_day(d bigint) RETURNS boolean LANGUAGE plpgsql AS $$
        DECLARE
            today bigint := floor(extract(epoch FROM now()) / 86400)::bigint;
            part text;
            low bigint := d * \(UTCDay.milliseconds);
            high bigint := (d + 1) * \(UTCDay.milliseconds);
        BEGIN
            IF d < today - \(PostgresTuning.partitionDaysBack) OR d > today + \(PostgresTuning.partitionDaysAhead) THEN RETURN false; END IF;
            part := 'events_' || to_char(to_timestamp(d * 86400) AT TIME ZONE 'UTC', 'YYYYMMDD');
            PERFORM pg_advisory_xact_lock(\(lock));
            IF to_regclass(part) IS NOT NULL THEN RETURN true; END IF;
            EXECUTE format('CREATE TABLE %I (LIKE events INCLUDING DEFAULTS)', part);
            EXECUTE format('WITH moved AS (DELETE FROM events_other WHERE corrected_ts >= %s AND corrected_ts < %s RETURNING *) '
                           'INSERT INTO %I SELECT * FROM moved', low, high, part);
            EXECUTE format('ALTER TABLE events ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)', part, low, high);
            RETURN true;
        END $$;

        SELECT autotrack_event_day(d) FROM (SELECT DISTINCT \(PostgresRollups.day("corrected_ts")) AS d FROM events_unpartitioned) AS days;
        INSERT INTO events SELECT * FROM events_unpartitioned;
        INSERT INTO event_ids (app_key, id, seq) SELECT app_key, id, seq FROM events_unpartitioned;
        DROP TABLE events_unpartitioned;
        CREATE INDEX events_seq_order ON events (seq);
        CREATE INDEX events_corrected_ts ON events (app_key, corrected_ts);
        \(PostgresRollups.sourceView)
        """

    /// Days this collector knows have their partition (or belong to `events_other`).
    private let known = Mutex(Set<Int64>())

    /// Creates the partitions of the days `group`'s events fall on that this collector has not
    /// seen yet (one short statement, its own transaction, before the group's insert).
    func prepare(_ group: [PostgresPendingBatch], on c: PostgresConnection) throws(PostgresError) {
        var days = Set<Int64>()
        var last: Int64?
        for batch in group {
            for e in batch.events {
                let day = UTCDay.number(of: e.correctedTime)
                if day != last { days.insert(day) }
                last = day
            }
        }
        let missing = known.withLock { days.subtracting($0) }
        guard !missing.isEmpty else { return }
        try c.execute("SELECT autotrack_event_day(d) FROM unnest($1::bigint[]) AS d", [PostgresArrayLiteral.integers(missing.sorted())])
        known.withLock { $0.formUnion(missing) }
    }

    /// Forgets `days` (dropped by a prune): a late event of one of them makes its partition again.
    func forget(_ days: some Sequence<Int64>) {
        known.withLock { $0.subtract(days) }
    }

    /// The day partitions that end at or before `before`, oldest first, with their day.
    static func partitions(endingBy before: Int64, on c: PostgresConnection) throws(PostgresError) -> [(name: String, day: Int64)] {
        try c.execute(
            """
            SELECT c.relname, (extract(epoch FROM to_date(substr(c.relname, 8), 'YYYYMMDD')) / 86400)::bigint AS day
            FROM pg_inherits AS i JOIN pg_class AS c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'events'::regclass AND c.relname ~ '^events_[0-9]{8}$'
            ORDER BY day
            """
        ).decode { r throws(SQLDecodingError) in (name: try r["relname", as: String.self], day: try r["day", as: Int64.self]) }
        .filter { ($0.day + 1) * UTCDay.milliseconds <= before }
    }

    /// Drops day partition `name` with its events' ids, in one transaction; returns its events.
    static func drop(_ name: String, on c: PostgresConnection) throws(PostgresError) -> Int {
        try c.transaction { () throws(PostgresError) -> Int in
            try c.execute("SELECT pg_advisory_xact_lock(\(lock))")
            let quoted = "\"\(name)\""
            let n = try c.execute("SELECT count(*) AS n FROM \(raw: quoted)").first("n", as: Int.self) ?? 0
            try c.execute("DELETE FROM event_ids AS i USING \(raw: quoted) AS p WHERE i.app_key = p.app_key AND i.id = p.id")
            try c.execute("DROP TABLE \(raw: quoted)")
            return n
        }
    }
}
