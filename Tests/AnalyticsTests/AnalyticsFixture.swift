import Analytics
import EventModel
import EventStore
import Foundation
import PostgresStore
import SQLiteStore
import TestSupport

/// Hand-made event sets for the analytics tests, stored through a real store.
enum AnalyticsFixture {
    /// 2026-11-01T00:00:00Z, a Sunday.
    static let day0: Int64 = 1_793_491_200_000
    static let minute: Int64 = 60_000
    static let hour: Int64 = 3_600_000
    static let day: Int64 = 86_400_000

    /// An event as JSON; `user`/`device` nil leaves the field out.
    static func event(
        _ id: String, _ type: String, _ name: String, at ts: Int64, user: String? = nil, device: String? = nil,
        session: String? = nil, page: String? = nil, path: String? = nil, duration: Int64? = nil
    ) -> JSONValue {
        TrackEvent(
            id: id, ts: ts, type: EventType(rawValue: type)!, name: name, page: page, path: path, session: session, user: user,
            device: device, duration: duration
        ).json
    }

    /// A new store of `kind` holding `batches`, each appended in order (storage order = this order).
    static func store(_ batches: [[JSONValue]], on kind: FixtureStore = .sqlite, appKey: String = "shop") throws -> any CollectorStore {
        let store = try kind.make()
        for b in batches {
            let outcome = try store.append(EventBatch(appKey: appKey, appVersion: "1.0", events: b))
            precondition(outcome.stored == b.count, "fixture events must all be stored: \(outcome)")
        }
        return store
    }

    static let home = EventKind(type: "page_enter", name: "Home")
    static let add = EventKind(type: "click", name: "Add")
    static let pay = EventKind(type: "click", name: "Pay")

    /// The funnel set (Home → Add → Pay, within 10 minutes); the answers are in FunnelTests.
    static func funnelEvents() -> [[JSONValue]] {
        let t = day0
        return [
            [
                // alice: all three in order within the window.
                event("a1", "page_enter", "Home", at: t, user: "alice", device: "d-a"),
                event("a2", "click", "Add", at: t + minute, user: "alice", device: "d-a"),
                event("a3", "click", "Pay", at: t + 2 * minute, user: "alice", device: "d-a"),
                // bob: Add before Home, then Pay: order violated, step 1 only.
                event("b1", "click", "Add", at: t, user: "bob", device: "d-b"),
                event("b2", "page_enter", "Home", at: t + 10_000, user: "bob", device: "d-b"),
                event("b3", "click", "Pay", at: t + 20_000, user: "bob", device: "d-b"),
                // carol: Pay 11 minutes after Home, outside the window: steps 1 and 2.
                event("c1", "page_enter", "Home", at: t, user: "carol", device: "d-c"),
                event("c2", "click", "Add", at: t + 5 * minute, user: "carol", device: "d-c"),
                event("c3", "click", "Pay", at: t + 11 * minute, user: "carol", device: "d-c"),
                // dave: no user, so his device is the actor: steps 1 and 2.
                event("d1", "page_enter", "Home", at: t, device: "d-dave"),
                event("d2", "click", "Add", at: t + minute, device: "d-dave"),
                // eve signs in for Home only; d-x is linked to her alone, so the Add without a user
                // is hers too (identity merge): by user she reaches Add.
                event("e1", "page_enter", "Home", at: t, user: "eve", device: "d-x"),
                event("e2", "click", "Add", at: t + minute, device: "d-x"),
                // frank: Add and Home at the same time, Add stored first: Home is after Add, step 1 only.
                event("f1", "click", "Add", at: t + hour, user: "frank", device: "d-f"),
                event("f2", "page_enter", "Home", at: t + hour, user: "frank", device: "d-f"),
                // gina: all three at the same time, stored in step order: all three.
                event("g1", "page_enter", "Home", at: t + hour, user: "gina", device: "d-g"),
                event("g2", "click", "Add", at: t + hour, user: "gina", device: "d-g"),
                event("g3", "click", "Pay", at: t + hour, user: "gina", device: "d-g"),
                // Nobody: neither user nor device, left out.
                event("n1", "page_enter", "Home", at: t),
                event("n2", "click", "Add", at: t + 1),
            ],
            [
                // harry: his Home arrives in a later batch with an earlier time: time order counts, not arrival.
                event("h2", "click", "Add", at: t + 2 * minute, user: "harry", device: "d-h")
            ],
            [event("h1", "page_enter", "Home", at: t + minute, user: "harry", device: "d-h")],
        ]
    }

    static let launch = EventKind(type: "app_start", name: "launch")

    /// The retention set (start app_start:launch, return page_enter:Home, by day); answers in RetentionTests.
    static func retentionEvents() -> [[JSONValue]] {
        let d0 = day0, d1 = day0 + day, d2 = day0 + 2 * day, d3 = day0 + 3 * day
        return [[
            // alice: cohort day 0; Home before her launch that day counts for period 0; back on day 1.
            event("a0", "page_enter", "Home", at: d0 + 9 * hour, user: "alice"),
            event("a1", "app_start", "launch", at: d0 + 10 * hour, user: "alice"),
            event("a2", "page_enter", "Home", at: d1 + 8 * hour, user: "alice"),
            // bob: launches on days 0 and 1: one cohort, day 0; back on day 2.
            event("b1", "app_start", "launch", at: d0 + 23 * hour, user: "bob"),
            event("b2", "app_start", "launch", at: d1 + hour, user: "bob"),
            event("b3", "page_enter", "Home", at: d2 + hour, user: "bob"),
            // carol: Home before she ever launched (no cohort yet), cohort day 1, back on days 1 and 3.
            event("c0", "page_enter", "Home", at: d0 + hour, user: "carol"),
            event("c1", "app_start", "launch", at: d1 + 2 * hour, user: "carol"),
            event("c2", "page_enter", "Home", at: d1 + 3 * hour, user: "carol"),
            event("c3", "page_enter", "Home", at: d3 + 3 * hour, user: "carol"),
            // A device without a user: its own actor, cohort day 1, never back.
            event("x1", "app_start", "launch", at: d1 + 5 * hour, device: "d-1"),
            // Neither user nor device: left out.
            event("n1", "app_start", "launch", at: d0 + hour),
            event("n2", "page_enter", "Home", at: d1 + hour),
        ]]
    }
}

/// The stores every analytics test runs on, with the same expected answers: a SQLite file, and a
/// fresh database on a real PostgreSQL server (one per test process, started on first use).
enum FixtureStore: String, CaseIterable, CustomStringConvertible {
    case sqlite, postgres

    var description: String { rawValue }

    /// A new, empty store.
    func make() throws -> any CollectorStore {
        try open(try location())
    }

    /// Where a new store goes: a file path that does not exist yet, or a new database's URI.
    func location() throws -> String {
        switch self {
        case .sqlite: return Fixtures.temporaryDirectory("analytics").appendingPathComponent("events.sqlite").path
        case .postgres: return try SharedPostgres.server.get().createDatabase()
        }
    }

    /// Opens (creating) the store at `location`.
    func open(_ location: String) throws -> any CollectorStore {
        switch self {
        case .sqlite: return try SQLiteEventStore(path: location)
        case .postgres: return try PostgresEventStore(uri: location)
        }
    }
}

/// One PostgreSQL server for the test process (a server per test would cost seconds each),
/// stopped when the process exits.
enum SharedPostgres {
    static let server: Result<PostgresServer, any Error> = {
        let started = Result { try PostgresServer() }
        if case .success = started { atexit { try? SharedPostgres.server.get().stop() } }
        return started
    }()
}
