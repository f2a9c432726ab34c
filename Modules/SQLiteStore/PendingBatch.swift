import EventModel
import EventStore
import StoreSQL

/// A batch validated and turned into rows, waiting for the group commit (`GroupCommit`) that stores it.
final class PendingBatch: Sendable {
    /// One event's row: stored in `events`, or kept in `rejected` with its reason.
    enum Row: Sendable {
        case event([SQLValue])
        /// The event's JSON text and why it was refused.
        case rejected(raw: String, reason: String)
    }

    let rows: [Row]
    let appKey: String
    let appVersion: String?
    let agent: String?
    let label: String?
    let sentAt: Int64?
    let receivedAt: Int64
    /// Each device with the user the valid events carry with it (or none), once (`DeviceLinkTable`).
    let deviceUsers: [DeviceUser]

    init(_ batch: EventBatch, receivedAt now: Int64) {
        var pairs = Set<DeviceUser>()
        rows = batch.events.map { raw in
            switch SQLiteEventStore.validate(raw) {
            case .failure(let error):
                return .rejected(raw: raw.jsonText, reason: error.description)
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
        appVersion = batch.appVersion
        agent = batch.agent
        label = batch.label
        sentAt = batch.sentAt
        receivedAt = now
        deviceUsers = Array(pairs)
    }

    /// Inserts the rows inside the caller's transaction; returns the counts. Only the rows: the
    /// rollup tables follow behind the watermark (`RollupWorker`), off the commit's path.
    func write(to db: SQLiteDatabase) throws(SQLiteError) -> BatchOutcome {
        var outcome = BatchOutcome()
        var events: [[SQLValue]] = []
        events.reserveCapacity(Self.eventsPerInsert)
        func insertEvents() throws(SQLiteError) {
            guard !events.isEmpty else { return }
            let stored = try db.run(Self.inserts[events.count - 1], rows: events)
            outcome.stored += stored
            outcome.duplicates += events.count - stored
            events.removeAll(keepingCapacity: true)
        }
        for row in rows {
            switch row {
            case .rejected(let raw, let reason):
                try db.run(
                    """
                    INSERT INTO rejected (app_key, app_version, raw, reason, received_at)
                    VALUES (\(appKey), \(appVersion), \(raw), \(reason), \(receivedAt))
                    """)
                outcome.rejected += 1
                outcome.rejections.append(reason)
            case .event(let values):
                events.append(values)
                if events.count == Self.eventsPerInsert { try insertEvents() }
            }
        }
        try insertEvents()
        try DeviceLinkTable.record(deviceUsers, appKey: appKey, in: db)
        try db.run(
            """
            INSERT INTO batches (app_key, app_version, agent, batch, sent_at, received_at, stored, duplicates, rejected)
            VALUES (\(appKey), \(appVersion), \(agent), \(label), \(sentAt), \(receivedAt),
                    \(outcome.stored), \(outcome.duplicates), \(outcome.rejected))
            """)
        return outcome
    }

    /// Events per INSERT: one statement for many rows costs SQLite's statement machine and our
    /// binding less than one each (measured: ATLP worker CPU per event, `ingest-bench`); at most
    /// this many statement texts are prepared (the last of a batch has fewer rows).
    static let eventsPerInsert = 32
    /// The INSERTs of 1 … `eventsPerInsert` rows, prepared on first use, found without hashing.
    static let inserts = (1...eventsPerInsert).map { HotStatement(insertEvents($0)) }
    /// Values per event row (`Row.event`).
    static let eventColumns = 16

    /// The INSERT of `count` event rows. ON CONFLICT names the one constraint a repeat breaks
    /// (where INSERT OR IGNORE would also swallow any other failure silently): a repeated
    /// `(app_key, id)`, in the table or earlier in the same statement, is left out, so the rows
    /// the statement changed are the events it stored.
    static func insertEvents(_ count: Int) -> String {
        let row = "(" + Array(repeating: "?", count: eventColumns).joined(separator: ", ") + ")"
        return """
            INSERT INTO events (app_key, id, ts, type, name, page, path, view_id, session, user_id, device_id,
                                duration, props, app_version, received_at, corrected_ts)
            VALUES \(Array(repeating: row, count: count).joined(separator: ", ")) ON CONFLICT (app_key, id) DO NOTHING
            """
    }
}
