import EventModel
import EventStore
import StoreSQL

/// A batch validated and turned into rows, waiting for the group commit (`GroupCommit`) that stores it.
final class PendingBatch: Sendable {
    /// One event's row: stored in `events`, or kept in `rejected` with its reason.
    enum Row: Sendable {
        case event([SQLValue])
        case rejected([SQLValue], reason: String)
    }

    let rows: [Row]
    let batchRow: [SQLValue]
    let appKey: String
    /// Each device with the user the valid events carry with it (or none), once (`DeviceLinkTable`).
    let deviceUsers: [DeviceUser]

    init(_ batch: EventBatch, receivedAt now: Int64) {
        var pairs = Set<DeviceUser>()
        rows = batch.events.map { raw in
            switch SQLiteEventStore.validate(raw) {
            case .failure(let error):
                return .rejected(
                    [.text(batch.appKey), batch.appVersion.sqlValue, .text(raw.jsonText), .text(error.description), .int(now)],
                    reason: error.description)
            case .success(let e):
                if let device = e.device { pairs.insert(DeviceUser(device: device, user: e.user)) }
                let time = batch.correctedTime(ts: e.ts, receivedAt: now)
                return .event([
                    .text(batch.appKey), .text(e.id), .int(e.ts), .text(e.type.rawValue), .text(e.name), e.page.sqlValue,
                    e.path.sqlValue, e.viewId.sqlValue, e.session.sqlValue, e.user.sqlValue, e.device.sqlValue, e.duration.sqlValue,
                    .text(JSONValue.object(e.props).jsonText), batch.appVersion.sqlValue, .int(now),
                    .int(time),
                ])
            }
        }
        appKey = batch.appKey
        deviceUsers = Array(pairs)
        batchRow = [
            .text(batch.appKey), batch.appVersion.sqlValue, batch.agent.sqlValue, batch.label.sqlValue, batch.sentAt.sqlValue, .int(now),
        ]
    }

    /// Inserts the rows inside the caller's transaction; returns the counts. Only the rows: the
    /// rollup tables follow behind the watermark (`RollupWorker`), off the commit's path.
    func write(to db: SQLiteDatabase) throws(SQLiteError) -> BatchOutcome {
        var outcome = BatchOutcome()
        for row in rows {
            switch row {
            case .rejected(let values, let reason):
                try db.run(
                    "INSERT INTO rejected (app_key, app_version, raw, reason, received_at) VALUES (?, ?, ?, ?, ?)", values)
                outcome.rejected += 1
                outcome.rejections.append(reason)
            case .event(let values):
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
                } else {
                    outcome.duplicates += 1
                }
            }
        }
        try DeviceLinkTable.record(deviceUsers, appKey: appKey, in: db)
        try db.run(
            """
            INSERT INTO batches (app_key, app_version, agent, batch, sent_at, received_at, stored, duplicates, rejected)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            batchRow + [.int(Int64(outcome.stored)), .int(Int64(outcome.duplicates)), .int(Int64(outcome.rejected))])
        return outcome
    }
}
