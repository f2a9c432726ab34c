import Analytics
import EventModel
import EventStore
import Foundation
import SQLiteStore
import TestSupport
import Testing

/// The rollup worker remembers across chunks what it stored (RollupMemory.swift: the ids'
/// numbers, the distinct ids of each day, the last page enter of each sequence, the last click
/// run of each actor and view) and skips the statements that memory answers. Its answers must
/// stay those of the events: after another connection changed the tables under that memory (a
/// prune and rebuild), after a chunk that failed halfway, and for events that arrive late or
/// continue a run or sequence across chunks. The worker is paused so each report applies what
/// was appended since the last one as one chunk, on the worker's connection and memory.
@Suite struct RollupMemoryTests {
    typealias R = RollupTests
    typealias F = AnalyticsFixture

    /// The tables a rebuild empties for an app (docs/schema.md).
    static let rollupTables = [
        "rollup_events", "rollup_actors", "rollup_actor_counts", "rollup_dwell_buckets", "rollup_dwell_days", "rollup_dwell_day_buckets",
        "rollup_page_enters", "rollup_transitions", "rollup_click_runs", "rollup_view_pages", "rollup_kind_events",
    ]

    func temporaryPath() -> String { Fixtures.temporaryDirectory("rollup-memory").appendingPathComponent("events.sqlite").path }

    /// Events of the sessions, people and views of `RollupTests.traffic`, every `step` ms from
    /// `start`: enters of changing pages, and clicks of one person on one view close enough to
    /// make one run.
    static func following(_ prefix: String, from start: Int64, step: Int64 = 400, count: Int = 24) -> [EventBatch] {
        let pages = ["Home", "List", "Cart"]
        var events: [JSONValue] = []
        for i in 0..<count {
            let t = start + Int64(i) * step
            let user = ["u1", "u2", nil][i % 3], device = ["d1", "d2", "d3", "p1"][i % 4], session = ["s1", "s2", "s3"][i % 3]
            if i % 2 == 0 {
                let page = pages[(i / 2) % 3]
                events.append(F.event("\(prefix)\(i)", "page_enter", page, at: t, user: user, device: device, session: session, page: page))
            } else {
                events.append(F.event("\(prefix)\(i)", "click", "tap", at: t, user: "u1", device: "d1", session: session, page: "Home", path: "V/Buy"))
            }
        }
        return [
            EventBatch(appKey: "shop", appVersion: "1.0", events: Array(events.prefix(count / 2))),
            EventBatch(appKey: "shop", appVersion: "2.0", events: Array(events.suffix(count - count / 2))),
        ]
    }

    /// Expects the store's answers to be those of its events (read after closing it).
    func expectAnswersOfTheEvents(_ store: SQLiteEventStore, _ path: String) throws {
        #expect(try store.activityRollup(.all) != nil)
        let answers = try R.answers(store)
        store.close()
        let fromEvents = try R.answersFromEvents(path)
        for (i, f) in R.filters.enumerated() { #expect(answers[i] == fromEvents[i], "filter \(f)") }
    }

    @Test(.timeLimit(.minutes(3))) func aPruneAndRebuildAfterTheWorkerLearntTheTablesMakeItForgetThem() throws {
        let path = temporaryPath()
        let store = try SQLiteEventStore(path: path)
        store.pauseRollupWorker(true)
        for b in R.traffic(seed: 6) { _ = try store.append(b) }
        // The worker's connection applies them, and remembers the sequences, runs and ids.
        #expect(try store.activityRollup(.all) != nil)
        // Every event of "shop" goes, and its rollups are rebuilt from none (on the store's
        // other connection): what the worker remembers of "shop" no longer holds.
        #expect(try store.prune(before: F.day0 + 10 * F.day, appKey: "shop", chunk: 50).events > 0)
        try store.rebuildRollups { _ in }
        #expect(try store.totals(EventFilter(appKey: "shop")).events == 0)
        // The same sessions, people and views again, the same day, after the pruned ones' times.
        for b in Self.following("again", from: F.day0 + 3 * F.day + F.hour) { _ = try store.append(b) }
        try expectAnswersOfTheEvents(store, path)
    }

    @Test(.timeLimit(.minutes(3))) func anotherProcessEmptyingTheRollupsMakesTheWorkerForgetThem() throws {
        let path = temporaryPath()
        let store = try SQLiteEventStore(path: path)
        store.pauseRollupWorker(true)
        for b in R.traffic(seed: 8) { _ = try store.append(b) }
        #expect(try store.activityRollup(.all) != nil)
        // Another process puts both apps in the backlog and empties their rollups; this store's
        // rebuild then replays their events from the first.
        _ = try sqlite(
            path,
            Self.rollupTables.map { "DELETE FROM \($0);" }.joined()
                + "INSERT OR REPLACE INTO rollup_backlog VALUES ('shop', 0), ('blog', 0);"
                + "INSERT OR REPLACE INTO rollup_pages_backlog VALUES ('shop', 0), ('blog', 0);")
        for b in Self.following("more", from: F.day0 + 3 * F.day + F.hour) { _ = try store.append(b) }
        try store.rebuildRollups { _ in }
        for b in Self.following("last", from: F.day0 + 3 * F.day + 2 * F.hour) { _ = try store.append(b) }
        try expectAnswersOfTheEvents(store, path)
    }

    @Test(.timeLimit(.minutes(3))) func aChunkThatFailsHalfwayLeavesNothingRemembered() throws {
        let path = temporaryPath()
        let store = try SQLiteEventStore(path: path)
        store.pauseRollupWorker(true)
        for b in R.traffic(seed: 9) { _ = try store.append(b) }
        #expect(try store.activityRollup(.all) != nil)
        for b in Self.following("next", from: F.day0 + 3 * F.day + F.hour) { _ = try store.append(b) }
        // The chunk of these fails at its last step (the block of rollup_kind_events that takes
        // the last event, the latest of its kind), after the enters, runs and ids were written
        // and learnt; it rolls back.
        let last = try sqlite(path, "SELECT MAX(seq) FROM events").first ?? ""
        for write in ["INSERT", "UPDATE"] {
            _ = try sqlite(
                path,
                """
                CREATE TRIGGER rollups.injected_\(write) BEFORE \(write) ON rollup_kind_events WHEN NEW.last_seq = \(last)
                BEGIN SELECT RAISE(ABORT, 'injected'); END;
                """)
        }
        #expect(throws: StoreError.self) { try store.activityRollup(.all) }
        #expect(try sqlite(path, "SELECT seq FROM rollup_watermark") != [last])
        _ = try sqlite(path, "DROP TRIGGER rollups.injected_INSERT; DROP TRIGGER rollups.injected_UPDATE")
        for b in Self.following("after", from: F.day0 + 3 * F.day + 2 * F.hour) { _ = try store.append(b) }
        try expectAnswersOfTheEvents(store, path)
    }

    @Test(.timeLimit(.minutes(3))) func runsAndSequencesGoOnAcrossChunksAndLateEventsFindTheirPlace() throws {
        let path = temporaryPath()
        let store = try SQLiteEventStore(path: path)
        store.pauseRollupWorker(true)
        for b in R.traffic(seed: 7) { _ = try store.append(b) }
        #expect(try store.activityRollup(.all) != nil)
        // Each chunk continues the runs and sequences of the one before (clicks 800 ms apart per
        // view and actor: bursts across chunks).
        let start = F.day0 + 3 * F.day + F.hour
        for round in 0..<3 {
            for b in Self.following("r\(round)-", from: start + Int64(round) * 24 * 400) { _ = try store.append(b) }
            #expect(try store.activityRollup(.all) != nil)
        }
        // Late ones: between the runs and enters just stored, and among the first day's.
        for b in Self.following("late", from: start + 200, step: 1_600, count: 12) { _ = try store.append(b) }
        for b in Self.following("early", from: F.day0 + F.day - 1_000, step: 150) { _ = try store.append(b) }
        let activity = try store.activity(.all)
        #expect(activity.rageClicks.contains { $0.view == "V/Buy" && $0.clicks >= 3 * 12 })
        try expectAnswersOfTheEvents(store, path)
    }

    /// The ids of one day sent by three versions: the first's in one chunk, the second's in the
    /// next (the worker remembers which versions hold ids that day), the third's after a restart
    /// (it remembers nothing, and learns the day's versions from the tables). Each id counts once
    /// for every version, and once for each version that sent it.
    @Test(.timeLimit(.minutes(3))) func idsOfADaySentByOneVersionThenOthersCountOnceForAllVersions() throws {
        let path = temporaryPath()
        let day = F.day0 + 2 * F.day
        func batch(_ version: String, _ prefix: String, users: [String]) -> EventBatch {
            let events = users.enumerated().map { i, u in
                F.event("\(prefix)\(i)", "page_enter", "Home", at: day + Int64(i) * 1_000, user: u, device: "d-\(u)", session: "s-\(u)", page: "Home")
            }
            return EventBatch(appKey: "shop", appVersion: version, events: events)
        }
        do {
            let store = try SQLiteEventStore(path: path)
            store.pauseRollupWorker(true)
            _ = try store.append(batch("1.0", "a", users: ["u1", "u2"]))
            #expect(try store.activityRollup(.all) != nil)
            _ = try store.append(batch("2.0", "b", users: ["u2", "u3"]))
            #expect(try store.activityRollup(.all) != nil)
            store.close()
        }
        let store = try SQLiteEventStore(path: path)
        store.pauseRollupWorker(true)
        _ = try store.append(batch("3.0", "c", users: ["u1", "u3", "u4"]))
        #expect(try store.activityRollup(.all) != nil)
        let counts = try sqlite(
            path,
            "SELECT all_versions || ':' || app_version || ':' || distinct_ids FROM rollup_actor_counts WHERE kind = 'a' ORDER BY all_versions, app_version")
        #expect(counts == ["0:1.0:2", "0:2.0:2", "0:3.0:3", "1::4"])
        try expectAnswersOfTheEvents(store, path)
    }
}
