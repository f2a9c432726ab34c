import EventModel
import EventStore
import StoreSQL

/// A batch validated, waiting for the ingest log and then for the transaction that stores its
/// rows in `events` (SQLiteEventStore+Ingest.swift). Before its `ACK` only what the `ACK` needs is
/// read from it: its refusals and its valid events' ids (for `IngestDedup`); its rows are built
/// when it is stored (`rows()`), on the storing thread, off the appends' path.
final class PendingBatch: Sendable {
    /// The events as received (their records and the bytes they point into).
    let batch: EventBatch
    /// The refused events in order: each one's JSON text and why it was refused.
    let rejected: [(raw: String, reason: String)]
    /// The valid events' ids, in order: their UTF-8 one after the other, and where each ends.
    private let ids: [UInt8]
    private let idEnds: [Int]
    let receivedAt: Int64
    /// About how many bytes it keeps in memory (`EventList.heldBytes` and its ids): what the
    /// journal's and the rollup hand-off's bounds count.
    let heldBytes: Int
    var appKey: String { batch.appKey }
    var appVersion: String? { batch.appVersion }
    var agent: String? { batch.agent }
    var label: String? { batch.label }
    var sentAt: Int64? { batch.sentAt }

    init(_ batch: EventBatch, receivedAt now: Int64) {
        var rejected: [(raw: String, reason: String)] = []
        var ids: [UInt8] = []
        var idEnds: [Int] = []
        batch.eventList.withRecords { received, texts in
            idEnds.reserveCapacity(received.count)
            ids.reserveCapacity(received.count * 24)
            for event in received {
                switch event {
                case .rejected(let raw, let reason): rejected.append((raw, reason))
                case .valid(let e):
                    if let id = texts[e.id] { ids.append(contentsOf: id) }
                    idEnds.append(ids.count)
                }
            }
        }
        self.batch = batch
        self.rejected = rejected
        self.ids = ids
        self.idEnds = idEnds
        receivedAt = now
        // The refusals' strings share their storage with the list's records, counted there.
        heldBytes = batch.eventList.heldBytes + ids.capacity + idEnds.capacity * MemoryLayout<Int>.stride
    }

    /// The valid events, in order.
    var validCount: Int { idEnds.count }

    /// Where valid event `index`'s id lies in `ids`.
    private func idRange(_ index: Int) -> Range<Int> { (index == 0 ? 0 : idEnds[index - 1])..<idEnds[index] }

    /// Calls `body` with the UTF-8 bytes of the id of valid event `index`.
    func idBytes<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        ids.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[idRange(index)])) }
    }

    /// Valid event `index`'s app key and id, as values to bind in that order.
    func key(_ index: Int) -> SQLiteValueBuffer {
        var key = SQLiteValueBuffer(values: 2)
        key.append(text: appKey)
        ids.withUnsafeBufferPointer { key.append(utf8: UnsafeBufferPointer(rebasing: $0[idRange(index)])) }
        return key
    }

    /// The valid events' rows, `eventColumns` values each, in order, their text in one buffer
    /// (bound from there without a copy); each device with the user its events carry with it
    /// (or none), once (`DeviceLinkTable`); and the valid events' corrected times, earliest to
    /// latest (nil: none), for the zone map.
    func rows() -> (events: SQLiteValueBuffer, deviceUsers: [DeviceUser], times: ClosedRange<Int64>?) {
        var pairs = Set<DeviceUser>()
        var earliest = Int64.max, latest = Int64.min
        let batch = batch, now = receivedAt
        // The texts are copied from the frame's bytes (or the batch's side bytes) into the rows'
        // buffer: no `String` per field.
        let events = batch.eventList.withRecords { received, texts in
            var rows = SQLiteValueBuffer(values: received.count * Self.eventColumns)
            // The same two values on every row: their bytes once.
            let appKeyValue = rows.text(batch.appKey)
            let appVersionValue = rows.text(batch.appVersion)
            // A session's events follow each other with the same device and user: compared as
            // bytes with the run's, and made strings and hashed once per run.
            var lastPair: (device: EventText, user: EventText?)?
            for event in received {
                guard case .valid(let e) = event else { continue }
                if let device = e.device, lastPair.map({ texts.same($0.device, device) && texts.same($0.user, e.user) }) != true {
                    pairs.insert(DeviceUser(device: texts.string(device), user: texts.string(e.user)))
                    lastPair = (device, e.user)
                }
                // In the order of `insertEvents`' columns.
                rows.append(appKeyValue)
                rows.append(utf8: texts[e.id])
                rows.append(.int(e.ts))
                rows.append(text: e.type.rawValue)
                rows.append(utf8: texts[e.name])
                rows.append(utf8: texts[e.page])
                rows.append(utf8: texts[e.path])
                rows.append(utf8: texts[e.viewId])
                rows.append(utf8: texts[e.session])
                rows.append(utf8: texts[e.user])
                rows.append(utf8: texts[e.device])
                rows.append(e.duration.map(SQLiteValueBuffer.Value.int) ?? .null)
                rows.append(utf8: texts[e.props])
                rows.append(appVersionValue)
                rows.append(.int(now))
                let corrected = batch.correctedTime(ts: e.ts, receivedAt: now)
                rows.append(.int(corrected))
                earliest = min(earliest, corrected)
                latest = max(latest, corrected)
            }
            return rows
        }
        return (events, Array(pairs), earliest <= latest ? earliest...latest : nil)
    }

    /// The counts of this batch before its duplicates are known: the refused events.
    var refusals: BatchOutcome {
        BatchOutcome(rejected: rejected.count, rejections: rejected.map(\.reason))
    }

    /// Inserts the rows inside the caller's transaction (the ingest log's batch being stored,
    /// SQLiteEventStore+Ingest.swift), and the batch's row with the counts its `ACK` gave; adds
    /// the stored rows' zone to `zones`: their seqs are after `lastSeq` (the highest in the table
    /// before, which this moves to the last stored: SQLite gives a new row the highest rowid plus
    /// one). Only the rows: the rollup tables follow behind the watermark (`RollupWorker`).
    /// Returns the run of seqs its valid events got when every one was stored (nil when some were
    /// left out as repeats, or none was valid), for the rollup workers' hand-off.
    @discardableResult
    func write(to db: SQLiteDatabase, lastSeq: inout Int64, zones: inout EventZones.Recorder, acknowledged: BatchOutcome) throws(SQLiteError)
        -> StoredRun?
    {
        for (raw, reason) in rejected {
            try db.run(
                """
                INSERT INTO rejected (app_key, app_version, raw, reason, received_at)
                VALUES (\(appKey), \(appVersion), \(raw), \(reason), \(receivedAt))
                """)
        }
        let (events, deviceUsers, times) = rows()
        let rows = events.count / Self.eventColumns
        var first = 0, stored = 0
        while first < rows {
            let count = min(StoreTuning.eventsPerInsert, rows - first)
            // A repeat the ACK counted is left out here by ON CONFLICT.
            stored += try db.run(
                Self.inserts[count - 1], events, values: first * Self.eventColumns..<(first + count) * Self.eventColumns)
            first += count
        }
        var run: StoredRun?
        if stored > 0, let times {
            let last = db.lastInsertedRowID
            zones.add(EventZones.Zone(appKey: appKey, seqs: (lastSeq + 1)...last, times: times))
            // Every row stored, each at the highest seq plus one: the rows' order, one seq each.
            if stored == rows, last - lastSeq == Int64(rows) { run = StoredRun(batch: self, first: lastSeq + 1, count: rows) }
            lastSeq = last
        }
        try DeviceLinkTable.record(deviceUsers, appKey: appKey, in: db)
        try db.run(
            """
            INSERT INTO batches (app_key, app_version, agent, batch, sent_at, received_at, stored, duplicates, rejected)
            VALUES (\(appKey), \(appVersion), \(agent), \(label), \(sentAt), \(receivedAt),
                    \(acknowledged.stored), \(acknowledged.duplicates), \(acknowledged.rejected))
            """)
        return run
    }

    /// The INSERTs of 1 … `StoreTuning.eventsPerInsert` rows, prepared on first use, found without hashing.
    static let inserts = (1...StoreTuning.eventsPerInsert).map { HotStatement(insertEvents($0)) }
    /// Values per event row (`events`).
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
