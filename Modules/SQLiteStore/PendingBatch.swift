import EventModel
import EventStore
import Synchronization

/// A batch validated and turned into rows, waiting for the group commit that stores it.
final class PendingBatch: Sendable {
    /// One event's row: stored in `events`, or kept in `rejected` with its reason.
    enum Row: Sendable {
        case event([SQLiteValue], RollupEvent)
        case rejected([SQLiteValue], reason: String)
    }

    let rows: [Row]
    let batchRow: [SQLiteValue]
    let appKey: String
    let appVersion: String?
    private let result = Mutex<Result<BatchOutcome, SQLiteError>?>(nil)

    init(_ batch: EventBatch, receivedAt now: Int64) {
        rows = batch.events.map { raw in
            switch SQLiteEventStore.validate(raw) {
            case .failure(let error):
                return .rejected(
                    [.text(batch.appKey), batch.appVersion.sqlite, .text(raw.jsonText), .text(error.description), .int(now)],
                    reason: error.description)
            case .success(let e):
                let time = batch.correctedTime(ts: e.ts, receivedAt: now)
                let rollup = RollupEvent(
                    seq: 0, time: time, type: e.type.rawValue, name: e.name, page: e.page, path: e.path,
                    title: e.props["title"]?.stringValue, session: e.session, user: e.user, device: e.device, duration: e.duration)
                return .event([
                    .text(batch.appKey), .text(e.id), .int(e.ts), .text(e.type.rawValue), .text(e.name), e.page.sqlite,
                    e.path.sqlite, e.viewId.sqlite, e.session.sqlite, e.user.sqlite, e.device.sqlite, e.duration.sqlite,
                    .text(JSONValue.object(e.props).jsonText), batch.appVersion.sqlite, .int(now),
                    .int(time),
                ], rollup)
            }
        }
        appKey = batch.appKey
        appVersion = batch.appVersion
        batchRow = [
            .text(batch.appKey), batch.appVersion.sqlite, batch.agent.sqlite, batch.label.sqlite, batch.sentAt.sqlite, .int(now),
        ]
    }

    /// Inserts the rows inside the caller's transaction, and adds the stored events to the
    /// rollup tables unless the app key waits in `rollup_backlog` (`rollups` false); returns the counts.
    func write(to db: SQLiteDatabase, rollups: Bool) throws(SQLiteError) -> BatchOutcome {
        var outcome = BatchOutcome()
        var stored: [RollupEvent] = []
        for row in rows {
            switch row {
            case .rejected(let values, let reason):
                try db.run(
                    "INSERT INTO rejected (app_key, app_version, raw, reason, received_at) VALUES (?, ?, ?, ?, ?)", values)
                outcome.rejected += 1
                outcome.rejections.append(reason)
            case .event(let values, var rollup):
                // ON CONFLICT names the one constraint a repeat breaks, where INSERT OR IGNORE
                // would also swallow any other failure silently.
                let changed = try db.run(
                    """
                    INSERT INTO events (app_key, id, ts, type, name, page, path, view_id, session, user_id, device_id,
                                        duration, props, app_version, received_at, corrected_ts)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (app_key, id) DO NOTHING
                    """, values)
                if changed == 1 {
                    outcome.stored += 1
                    rollup.seq = db.lastInsertedRowID
                    stored.append(rollup)
                } else {
                    outcome.duplicates += 1
                }
            }
        }
        try RollupUpdate(db: db, appKey: appKey, appVersion: appVersion).apply(rollups ? stored : [])
        try DeviceLinkTable.record(stored, appKey: appKey, in: db)
        try db.run(
            """
            INSERT INTO batches (app_key, app_version, agent, batch, sent_at, received_at, stored, duplicates, rejected)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            batchRow + [.int(Int64(outcome.stored)), .int(Int64(outcome.duplicates)), .int(Int64(outcome.rejected))])
        return outcome
    }

    var isDone: Bool { result.withLock { $0 != nil } }

    func finish(_ r: Result<BatchOutcome, SQLiteError>) { result.withLock { $0 = r } }

    /// The recorded result; only called after a commit finished this batch.
    func outcome() throws(SQLiteError) -> BatchOutcome {
        guard let r = result.withLock({ $0 }) else {
            throw SQLiteError(code: SQLiteCode.misuse, message: "internal: the batch was not committed", sql: "")
        }
        return try r.get()
    }
}
