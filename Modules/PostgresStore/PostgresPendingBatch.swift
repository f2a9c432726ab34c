import EventModel
import EventStore

/// A batch validated and turned into column values, waiting for the group commit that stores it.
/// Built on the caller's thread before any lock is taken, so validation runs in parallel; queued
/// by `GroupCommit`.
final class PostgresPendingBatch: Sendable {
    /// One valid event's values, in `events` column order after `app_key` (which the batch holds);
    /// text in its stored form (`PostgresText`).
    struct EventRow: Sendable {
        var id: String
        var ts: Int64
        var type: String
        var name: String
        var page, path, viewId, session: String?
        var duration: Int64?
        var props: String
        var user, device: String?
        var correctedTime: Int64
    }

    let appKey: String
    let appVersion: String?
    let agent: String?
    let label: String?
    let sentAt: Int64?
    let receivedAt: Int64
    let events: [EventRow]
    /// Events kept in `rejected`: the raw JSON text and the reason, in batch order.
    let rejected: [(raw: String, reason: String)]
    init(_ batch: EventBatch, receivedAt now: Int64) {
        appKey = PostgresText.encode(batch.appKey)
        appVersion = PostgresText.encode(batch.appVersion)
        agent = PostgresText.encode(batch.agent)
        label = PostgresText.encode(batch.label)
        sentAt = batch.sentAt
        receivedAt = now
        var events: [EventRow] = []
        var rejected: [(raw: String, reason: String)] = []
        events.reserveCapacity(batch.eventList.count)
        batch.eventList.withRecords { received, texts in
            for event in received {
                switch event {
                case .rejected(let raw, let reason):
                    rejected.append((PostgresText.encode(raw), PostgresText.encode(reason)))
                case .valid(let e):
                    typealias T = PostgresText
                    events.append(
                        EventRow(
                            id: T.encode(texts.string(e.id)), ts: e.ts, type: e.type.rawValue, name: T.encode(texts.string(e.name)),
                            page: T.encode(texts.string(e.page)), path: T.encode(texts.string(e.path)), viewId: texts.string(e.viewId),
                            session: T.encode(texts.string(e.session)), duration: e.duration, props: T.encode(texts.string(e.props)),
                            user: T.encode(texts.string(e.user)), device: T.encode(texts.string(e.device)),
                            correctedTime: batch.correctedTime(ts: e.ts, receivedAt: now)))
                }
            }
        }
        self.events = events
        self.rejected = rejected
    }
}
