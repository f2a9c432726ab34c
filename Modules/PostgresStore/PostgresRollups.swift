import EventStore
import StoreSQL

/// The rollup tables (schema migration 3, docs/postgres.md "Rollups"): what each holds,
/// as rows derived from a relation shaped like the view `agg_source` (one row per event), and
/// how a step of the builder adds the events after the watermark to them.
///
/// The same row shapes serve both sides: the builder adds a chunk of events to the tables; a
/// report reads the tables and adds the same rows of the events after the watermark (the tail)
/// in the same statement's snapshot, so an answer counts every event committed before it, once.
///
/// Order-dependent figures (page transitions, click runs) are kept per sequence: `agg_enters`
/// and `agg_clicks` hold each sequence's page enters and clicks (narrow rows), and a chunk's
/// sequences are recomputed whole: their transitions before and after (a signed delta, so late
/// events land between their neighbours), their runs replaced.
enum PostgresRollups {
    /// Held (`pg_advisory_xact_lock_shared`) by every group insert from before it draws `seq`s
    /// until it commits; the builder takes it exclusively for an instant, so every `seq` drawn
    /// before that instant is committed or rolled back: the watermark never passes a `seq` that
    /// may still appear.
    static let ingestLock: Int64 = 0x61_7574_6f69_6e67
    /// Held (`pg_advisory_xact_lock`) by every transaction that changes the rollup tables
    /// (a builder step, a prune): they never interleave.
    static let writeLock: Int64 = 0x61_7574_6f61_6767
    /// Held (`pg_try_advisory_lock`, session level) by the one collector that builds; freed by
    /// PostgreSQL when that collector's session ends, however it ends.
    static let builderLock: Int64 = 0x61_7574_6f62_6c64

    /// Every table the builder fills, emptied together when the rollups start over.
    static let tables = [
        "agg_events", "agg_ids", "agg_dwell", "agg_dwell_buckets", "agg_view_pages", "agg_enters", "agg_transitions", "agg_clicks",
        "agg_runs", "agg_id_counts",
    ]

    /// Migration 7: `agg_id_counts`, the number of distinct ids of `agg_ids` per day, kind, app key
    /// and version (`all_versions` false) or across versions (true, `v` ''), as SQLite's
    /// `rollup_actor_counts`: a report adds them up instead of counting `agg_ids` rows.
    static let idCountsMigration = """
        CREATE TABLE agg_id_counts (
            day bigint NOT NULL, kind "char" NOT NULL, app_key text COLLATE "C" NOT NULL,
            all_versions boolean NOT NULL, v text COLLATE "C" NOT NULL, n bigint NOT NULL,
            PRIMARY KEY (day, kind, all_versions, app_key, v)
        );
        INSERT INTO agg_id_counts (day, kind, app_key, all_versions, v, n)
            SELECT day, kind, app_key, false, v, count(*) FROM agg_ids GROUP BY day, kind, app_key, v
            UNION ALL SELECT day, kind, app_key, true, '', count(DISTINCT h) FROM agg_ids GROUP BY day, kind, app_key;
        """

    /// One row per event in the columns the rollups are made of (`v`: the version, none as
    /// ''; `t`: the corrected time; `day`: its UTC day; `title`: `props.title` when a string).
    static let sourceView = """
        CREATE OR REPLACE VIEW agg_source AS
            SELECT seq, app_key, app_version, COALESCE(app_version, '') AS v, corrected_ts AS t, corrected_ts,
                   \(day("corrected_ts")) AS day, type, name, page, path,
                   CASE WHEN json_typeof(props->'title') = 'string' THEN props->>'title' END AS title,
                   session, user_id, device_id, duration
            FROM events;
        """

    /// The watermark in `c`'s transaction. Statements take it as a parameter, not as a subquery:
    /// planned with its value, `seq > n` reads the few rows after it through the `seq` index;
    /// planned with an unknown value, PostgreSQL guessed a third of the table and read all of it.
    static func watermark(_ c: PostgresConnection) throws(PostgresError) -> Int64 {
        try c.execute("SELECT watermark FROM agg_state").first("watermark", as: Int64.self) ?? 0
    }

    /// The actor as sent (`ActorKind.user.sentIDColumn`: user, else device), before identity merge.
    static let actor = ActorKind.user.sentIDColumn
    /// An enter's page sequence: its session, else its actor as sent.
    static let pageSequence = "COALESCE(session, \(actor))"

    /// The UTC day of a `bigint` time in milliseconds, rounded down before 1970 too (`UTCDay`):
    /// `bigint` division truncates toward zero, so a negative time with a remainder is one day
    /// lower. Exact for every `bigint` (neither the quotient nor the remainder can overflow), and
    /// without `numeric`, whose every operation allocates.
    static func day(_ t: String) -> String {
        "(\(t) / \(UTCDay.milliseconds) - (\(t) % \(UTCDay.milliseconds) < 0)::int)"
    }

    /// A row's key digest: md5 of the values as one row's text (NULL and '' differ there).
    static func digest(_ columns: String...) -> String { "md5(row(\(columns.joined(separator: ", ")))::text)::uuid" }

    /// `DwellBucket` in SQL: below 64 ms each duration is its own bucket; above, a bucket is 1/32
    /// of its power of two (its bit length from the `bit(64)` text).
    static func bucket(_ d: String) -> String {
        let shift = "(59 - position('1' in \(d)::bit(64)::text))"
        return "CASE WHEN \(d) < 64 THEN \(d) ELSE (\(d) >> \(shift)) << \(shift) END"
    }

    // MARK: rows of each table, from a relation shaped like `agg_source` (a table name, or a
    // subquery with its alias)

    /// Per event: its counts' key and its contribution (1 event; a page leave's duration).
    static func countRows(_ src: SQLQuery) -> SQLQuery {
        """
        SELECT app_key, app_version, day, type, name, page, path, title, 1::bigint AS events,
               (type = 'page_leave' AND duration IS NOT NULL)::int::bigint AS dwell_count,
               CASE WHEN type = 'page_leave' THEN COALESCE(duration, 0) ELSE 0 END::numeric AS dwell_sum
        FROM \(src)
        """
    }

    /// Per event and kind of id it has: `a` actor (user, else device), `d` device, `s` session.
    /// (Keys come as text; the builder digests them after `DISTINCT`, which is cheaper.)
    static func idRows(_ src: SQLQuery) -> SQLQuery {
        """
        SELECT day, k.kind, app_key, v, k.id
        FROM \(src) CROSS JOIN LATERAL (VALUES ('a'::"char", \(raw: actor)), ('d', device_id), ('s', session)) AS k(kind, id)
        WHERE k.id IS NOT NULL
        """
    }

    /// Per page leave with a duration: its page (else name) and duration.
    static func dwellRows(_ src: SQLQuery) -> SQLQuery {
        "SELECT app_key, v, COALESCE(page, name) AS page, day, duration FROM \(src) WHERE type = 'page_leave' AND duration IS NOT NULL"
    }

    /// Per click with an actor and a page: its view (path, else name), `seq` and page.
    static func viewPageRows(_ src: SQLQuery) -> SQLQuery {
        """
        SELECT app_key, v, COALESCE(path, name) AS view, day, seq, page
        FROM \(src) WHERE type = 'click' AND \(raw: actor) IS NOT NULL AND page IS NOT NULL
        """
    }

    /// Per page enter with a sequence (session, else user, else device): its place and page.
    static func enterRows(_ src: SQLQuery) -> SQLQuery {
        """
        SELECT \(raw: digest("app_key", "v", pageSequence)) AS h, t, seq, app_key, v, COALESCE(page, name) AS page
        FROM \(src) WHERE type = 'page_enter' AND \(raw: pageSequence) IS NOT NULL
        """
    }

    /// Per click with an actor: its run's key (app, version, actor, view) and place.
    static func clickRows(_ src: SQLQuery) -> SQLQuery {
        """
        SELECT \(raw: digest("app_key", "v", actor, "COALESCE(path, name)")) AS h, t, seq, app_key, v, \(raw: actor) AS actor,
               COALESCE(path, name) AS view
        FROM \(src) WHERE type = 'click' AND \(raw: actor) IS NOT NULL
        """
    }

    /// The transitions of the enters in `enters` (columns of `agg_enters`), per sequence `h`.
    static func transitions(_ enters: SQLQuery) -> SQLQuery {
        """
        SELECT app_key, v, \(raw: day("lt")) AS from_day, \(raw: day("t")) AS to_day, lp AS from_page, page AS to_page
        FROM (SELECT *, lag(page) OVER w AS lp, lag(t) OVER w AS lt FROM (\(enters)) AS x WINDOW w AS (PARTITION BY h ORDER BY t, seq)) AS s
        WHERE lp IS NOT NULL AND lp <> page
        """
    }

    /// The signed change to the transitions when the enters of CTE `new` join their sequences in
    /// `agg_enters`: each touched sequence's transitions before (−1) and after (+1). A CTE list
    /// ending in `delta(app_key, v, from_day, to_day, from_page, to_page, n)`.
    static func transitionDelta(new: String) -> SQLQuery {
        let columns = "h, t, seq, app_key, v, page"
        return """
            touched AS (SELECT DISTINCT h FROM \(raw: new)),
            old AS (SELECT \(raw: columns) FROM agg_enters WHERE h IN (SELECT h FROM touched)),
            delta AS (
                SELECT app_key, v, from_day, to_day, from_page, to_page, sum(sign)::bigint AS n FROM (
                    SELECT -1 AS sign, * FROM (\(transitions("SELECT \(raw: columns) FROM old"))) AS before
                    UNION ALL
                    SELECT 1, * FROM (\(transitions("SELECT \(raw: columns) FROM old UNION ALL SELECT \(raw: columns) FROM \(raw: new)"))) AS after
                ) AS d GROUP BY app_key, v, from_day, to_day, from_page, to_page
            )
            """
    }

    /// The click runs of `clicks` (columns of `agg_clicks`) with at least `rageMinimumClicks`
    /// clicks (a shorter run stays too short however a range cuts it): clicks of one key at
    /// most `rageGapMilliseconds` apart (compared as numeric: no overflow at the extremes).
    static func runs(_ clicks: SQLQuery) -> SQLQuery {
        """
        SELECT h, app_key, v, actor, view, min(t) AS start_t, max(t) AS end_t, count(*) AS clicks FROM (
            SELECT *, sum(brk) OVER (PARTITION BY h ORDER BY t, seq) AS run FROM (
                SELECT *, CASE WHEN t::numeric - (lag(t) OVER (PARTITION BY h ORDER BY t, seq))::numeric <= \(raw: String(ActivityRollup.rageGapMilliseconds))
                               THEN 0 ELSE 1 END AS brk
                FROM (\(clicks)) AS c
            ) AS b
        ) AS r GROUP BY h, app_key, v, actor, view, run HAVING count(*) >= \(raw: String(ActivityRollup.rageMinimumClicks))
        """
    }

    // MARK: the builder

    /// The highest `seq` the watermark may reach now: every `seq` drawn so far belongs to a
    /// committed or rolled-back transaction (see `ingestLock`); nil before the first event.
    static func safeSequence(_ c: PostgresConnection) throws(PostgresError) -> Int64? {
        try c.transaction { () throws(PostgresError) -> Int64? in
            try c.execute("SELECT pg_advisory_xact_lock(\(raw: String(ingestLock)))")
            let last = "SELECT pg_sequence_last_value(pg_get_serial_sequence('events', 'seq')::regclass) AS last"
            return try c.execute(SQLQuery(raw: last)).first("last", as: Int64?.self) ?? nil
        }
    }

    /// Adds the events after the watermark, up to `chunk` `seq`s of them and no further than
    /// `safeSequence`, to the rollup tables and moves the watermark, in one transaction.
    /// Returns how many events it added, nil when the rollups were up to date.
    @discardableResult
    static func buildStep(_ c: PostgresConnection, chunk: Int64) throws(PostgresError) -> Int? {
        guard let safe = try safeSequence(c) else { return nil }
        return try c.transaction { () throws(PostgresError) -> Int? in
            try c.execute("SELECT pg_advisory_xact_lock(\(raw: String(writeLock)))")
            let from = try watermark(c)
            guard from < safe else { return nil }
            let to = from + min(chunk, safe - from)
            let added = try c.execute(
                "CREATE TEMP TABLE agg_chunk ON COMMIT DROP AS SELECT * FROM agg_source WHERE seq > \(from) AND seq <= \(to)"
            ).affected
            if added > 0 { try addChunk(c) }
            try c.execute("UPDATE agg_state SET watermark = \(to)")
            return added
        }
    }

    /// Adds the rows of temporary table `agg_chunk` to every rollup table.
    private static func addChunk(_ c: PostgresConnection) throws(PostgresError) {
        try c.execute(
            """
            INSERT INTO agg_events AS a (day, h, app_key, app_version, type, name, page, path, title, events, dwell_count, dwell_sum)
            SELECT day, \(raw: digest("app_key", "app_version", "type", "name", "page", "path", "title")), app_key, app_version, type, name,
                   page, path, title, sum(events), sum(dwell_count), sum(dwell_sum)
            FROM (\(countRows("agg_chunk"))) AS e GROUP BY app_key, app_version, day, type, name, page, path, title
            ON CONFLICT (day, h) DO UPDATE SET events = a.events + excluded.events, dwell_count = a.dwell_count + excluded.dwell_count,
                dwell_sum = a.dwell_sum + excluded.dwell_sum
            """)
        // The statement reads `agg_ids` as before its insert: an id is new across versions when no
        // version had it that day.
        try c.execute(
            """
            WITH new AS (
                INSERT INTO agg_ids (day, kind, h, v, app_key)
                SELECT day, kind, \(raw: digest("app_key", "id")), v, app_key FROM (SELECT DISTINCT * FROM (\(idRows("agg_chunk"))) AS i) AS d
                ON CONFLICT DO NOTHING RETURNING day, kind, h, v, app_key)
            INSERT INTO agg_id_counts AS a (day, kind, app_key, all_versions, v, n)
            SELECT day, kind, app_key, false, v, count(*) FROM new GROUP BY day, kind, app_key, v
            UNION ALL SELECT day, kind, app_key, true, '', count(DISTINCT h) FROM new
                WHERE NOT EXISTS (SELECT 1 FROM agg_ids AS i WHERE i.day = new.day AND i.kind = new.kind AND i.h = new.h)
                GROUP BY day, kind, app_key
            ON CONFLICT (day, kind, all_versions, app_key, v) DO UPDATE SET n = a.n + excluded.n
            """)
        try c.execute(
            """
            INSERT INTO agg_dwell AS a (h, day, duration, app_key, v, page, bucket, leaves)
            SELECT \(raw: digest("app_key", "v", "page")), day, duration, app_key, v, page, \(raw: bucket("duration")), n
            FROM (SELECT app_key, v, page, day, duration, count(*) AS n FROM (\(dwellRows("agg_chunk"))) AS d
                  GROUP BY app_key, v, page, day, duration) AS g
            ON CONFLICT (h, day, duration) DO UPDATE SET leaves = a.leaves + excluded.leaves
            """)
        try c.execute(
            """
            INSERT INTO agg_dwell_buckets AS a (h, day, bucket, app_key, v, page, leaves)
            SELECT \(raw: digest("app_key", "v", "page")), day, bucket, app_key, v, page, sum(n)
            FROM (SELECT app_key, v, page, day, \(raw: bucket("duration")) AS bucket, count(*) AS n FROM (\(dwellRows("agg_chunk"))) AS d
                  GROUP BY app_key, v, page, day, duration) AS g
            GROUP BY app_key, v, page, day, bucket
            ON CONFLICT (h, day, bucket) DO UPDATE SET leaves = a.leaves + excluded.leaves
            """)
        // Chunks come in `seq` order, so a view's first click on a day is the first one added.
        try c.execute(
            """
            INSERT INTO agg_view_pages (h, day, app_key, v, view, first_seq, page)
            SELECT \(raw: digest("app_key", "v", "view")), day, app_key, v, view, seq, page FROM (
                SELECT DISTINCT ON (app_key, v, view, day) * FROM (\(viewPageRows("agg_chunk"))) AS p ORDER BY app_key, v, view, day, seq
            ) AS f
            ON CONFLICT DO NOTHING
            """)
        try c.execute(
            """
            WITH new AS MATERIALIZED (\(enterRows("agg_chunk"))), \(transitionDelta(new: "new"))
            INSERT INTO agg_transitions AS a (h, from_day, to_day, app_key, v, from_page, to_page, n)
            SELECT \(raw: digest("app_key", "v", "from_page", "to_page")), from_day, to_day, app_key, v, from_page, to_page, n FROM delta WHERE n <> 0
            ON CONFLICT (h, from_day, to_day) DO UPDATE SET n = a.n + excluded.n
            """)
        try c.execute("DELETE FROM agg_transitions WHERE n = 0")
        // In key order: the primary key's pages are filled one after the other, not at random.
        try c.execute("INSERT INTO agg_enters (h, t, seq, app_key, v, page) SELECT * FROM (\(enterRows("agg_chunk"))) AS e ORDER BY h, t, seq")
        try c.execute("CREATE TEMP TABLE agg_chunk_clicks ON COMMIT DROP AS \(clickRows("agg_chunk"))")
        try c.execute("DELETE FROM agg_runs WHERE h IN (SELECT h FROM agg_chunk_clicks)")
        try c.execute("INSERT INTO agg_clicks (h, t, seq, app_key, v, actor, view) SELECT * FROM agg_chunk_clicks ORDER BY h, t, seq")
        try c.execute(
            """
            INSERT INTO agg_runs (h, start_t, end_t, start_day, end_day, app_key, v, actor, view, clicks)
            SELECT h, start_t, end_t, \(raw: day("start_t")), \(raw: day("end_t")), app_key, v, actor, view, clicks
            FROM (\(runs("SELECT * FROM agg_clicks WHERE h IN (SELECT DISTINCT h FROM agg_chunk_clicks)"))) AS r
            """)
    }

    /// Empties the rollup tables and sets the watermark to 0: the builder starts over from the
    /// first event (after a prune), while reports read the events after the watermark meanwhile.
    static func reset(_ c: PostgresConnection) throws(PostgresError) {
        try c.transaction { () throws(PostgresError) in
            try c.execute("SELECT pg_advisory_xact_lock(\(raw: String(writeLock)))")
            try c.execute("TRUNCATE \(raw: tables.joined(separator: ", "))")
            try c.execute("UPDATE agg_state SET watermark = 0")
        }
    }
}
