import EventModel
import EventStore
import StoreSQL
import Foundation
@testable import SQLiteStore
import TestSupport
import Testing

/// The rollup workers apply the rows `ingest-store` stored from memory (`RollupHandoff`) and read
/// back from `events` only what memory lacks: either way each rollups file must hold exactly
/// what a read-back of every event gives. Each test stores the same batches twice, once with the
/// hand-off and once with a hand-off of no bytes (every event read back), and compares every table of both
/// rollups files row for row, then the answers with those read from the events.
@Suite struct RollupHandoffTests {
    typealias R = RollupTests

    func temporaryPath(_ name: String) -> String { Fixtures.temporaryDirectory("handoff").appendingPathComponent("\(name).sqlite").path }

    /// Realistic mixed batches: the rollup tests' traffic (late batches, repeats, titles that are
    /// strings, numbers or absent, page_leave durations of any sign, bursts over midnight), then
    /// the ingest benchmark's shop mix (titles on clicks, dwell, rage bursts), as `EventBatch`es.
    static func batches() -> [EventBatch] {
        var shop = ShopTraffic(users: 60, days: 3, seed: 11, signedIn: 20, buttonsPerPage: 4)
        var mixed = R.traffic(seed: 21)
        var n = 0
        shop.batches(total: 3_000, batchSize: 200) { events in
            n += 1
            mixed.append(EventBatch(appKey: n % 3 == 0 ? "blog" : "shop", appVersion: n % 2 == 0 ? "2.0" : nil, events: events))
        }
        // A title spelled with an escape, one nested (not the event's), one in a key's prefix.
        let odd = [#"{"ti\u0074le":"Escaped"}"#, #"{"a":{"title":"Nested"}}"#, #"{"subtitle":"Sub","title":"Top"}"#, #"{"x":"title"}"#]
        mixed.append(
            EventBatch(
                appKey: "shop", appVersion: "1.0",
                events: odd.enumerated().map { i, props in
                    var e = TrackEvent(id: "odd\(i)", ts: AnalyticsFixture.day0 + 1_000 * Int64(i), type: .click, name: "tap", path: "V/Odd", user: "u1").json
                    if case .object(var o) = e, let p = try? JSONValue.parse(Array(props.utf8)) {
                        o["props"] = p
                        e = .object(o)
                    }
                    return e
                }))
        return mixed
    }

    /// Every row of every table of both rollups files, each table's rows sorted.
    func tables(_ path: String) throws -> [String: [String]] {
        var all: [String: [String]] = [:]
        for part in RollupPart.allCases {
            for table in part.tables {
                let columns = table == "rollup_kind_events" ? "kind, first_ts, first_seq, last_ts, last_seq, entries, hex(events)" : "*"
                all["\(part.schema).\(table)"] = try sqlite(path, "SELECT \(columns) FROM \(part.schema).\(table)").sorted()
            }
        }
        return all
    }

    /// Stores `batches` in a store holding `handoffBytes` for the hand-off, with the workers
    /// paused except after each batch of `catchUpAfter` (there they apply everything stored, then
    /// pause again), then lets the workers apply everything; returns the store's (closed) path and
    /// the events each worker applied from memory.
    func store(_ batches: [EventBatch], _ name: String, handoffBytes: Int, catchUpAfter: Set<Int> = []) throws
        -> (path: String, fromMemory: [RollupPart: Int], stored: Int)
    {
        let path = temporaryPath(name)
        let store = try SQLiteEventStore(path: path, memory: SQLiteMemoryBounds(waitingBytes: StoreTuning.maxWaitingBytes, handoffBytes: handoffBytes))
        func catchUp() throws -> (watermark: Int64, last: Int64) {
            // Everything stored in `events` (and handed off, or not) before the workers go on.
            try store.ingestCurrent()
            store.pauseRollupWorker(false)
            var p = try store.rollupPositions()
            for _ in 0..<400 where p.watermark < p.last {
                Thread.sleep(forTimeInterval: 0.025)
                p = try store.rollupPositions()
            }
            #expect(p.watermark == p.last, "the workers caught up")
            return p
        }
        store.pauseRollupWorker(true)
        for (i, b) in batches.enumerated() {
            _ = try store.append(b)
            if catchUpAfter.contains(i) {
                _ = try catchUp()
                store.pauseRollupWorker(true)
            }
        }
        let p = try catchUp()
        let fromMemory = store.rollupEventsFromMemory
        store.close()
        return (path, fromMemory, Int(p.last))
    }

    /// What `PendingBatch.heldBytes` counts for `batches`.
    static func heldBytes(_ batches: some Sequence<EventBatch>) -> Int {
        batches.reduce(0) { $0 + PendingBatch($1, receivedAt: 0).heldBytes }
    }

    @Test(.timeLimit(.minutes(3))) func rowsFromMemoryGiveTheTablesAReadBackGives() throws {
        let batches = Self.batches()
        let memory = try store(batches, "memory", handoffBytes: StoreTuning.rollupHandoffBytes)
        let readBack = try store(batches, "read-back", handoffBytes: 0)
        #expect(memory.stored > 3_500 && memory.stored == readBack.stored)
        // The reference read everything back; the hand-off gave all but the batches with repeats.
        #expect(readBack.fromMemory.values.allSatisfy { $0 == 0 })
        for part in RollupPart.allCases { #expect(memory.fromMemory[part]! > memory.stored * 9 / 10, "\(part)") }
        let a = try tables(memory.path), b = try tables(readBack.path)
        #expect(a.keys.sorted() == b.keys.sorted())
        for (table, rows) in b {
            let same = a[table] == rows
            #expect(same, "\(table): \(a[table]?.count ?? -1) rows against \(rows.count)")
        }
        #expect(b["rollups.rollup_click_runs"]!.count > 100 && b["rollup_pages.rollup_events"]!.contains { $0.contains("Escaped") })
        // And the reports answer as the events do.
        let store = try SQLiteEventStore(path: memory.path)
        let answers = try R.answers(store)
        store.close()
        let fromEvents = try R.answersFromEvents(memory.path)
        for (i, f) in R.filters.enumerated() { #expect(answers[i] == fromEvents[i], "filter \(f)") }
    }

    @Test(.timeLimit(.minutes(3))) func aGapInTheHandoffIsReadBackFromEvents() throws {
        let batches = Self.batches()
        // A hand-off that holds about ten batches, the workers paused: the first batches are
        // handed off, those after them dropped (a gap), then, each time the workers caught up,
        // memory again. The workers take memory, read the gap, take memory again.
        let bound = Self.heldBytes(batches.prefix(10))
        let gaps = try store(batches, "gaps", handoffBytes: bound, catchUpAfter: [25, 45])
        // The reference's workers apply in the same rounds (where a round ends shapes some rows:
        // a late event's corrections, the blocks of `rollup_kind_events`; never an answer).
        let readBack = try store(batches, "gaps-read-back", handoffBytes: 0, catchUpAfter: [25, 45])
        for part in RollupPart.allCases {
            let n = gaps.fromMemory[part]!
            #expect(n > gaps.stored / 10 && n < gaps.stored * 9 / 10, "\(part): \(n) of \(gaps.stored) from memory")
        }
        let a = try tables(gaps.path), b = try tables(readBack.path)
        for (table, rows) in b {
            let same = a[table] == rows
            #expect(same, "\(table): \(a[table]?.count ?? -1) rows against \(rows.count)")
        }
        let store = try SQLiteEventStore(path: gaps.path)
        let answers = try R.answers(store)
        store.close()
        let fromEvents = try R.answersFromEvents(gaps.path)
        for (i, f) in R.filters.enumerated() { #expect(answers[i] == fromEvents[i], "filter \(f)") }
    }

    @Test func theHandoffTakesWhatFollowsTheWatermarkOnly() throws {
        let batch = PendingBatch(EventBatch(appKey: "a", events: (0..<10).map { TrackEvent(id: "e\($0)", ts: 1, type: .click, name: "n").json }), receivedAt: 0)
        let handoff = RollupHandoff(maxBytes: 25 * batch.heldBytes)
        handoff.offer([StoredRun(batch: batch, first: 11, count: 10), StoredRun(batch: batch, first: 31, count: 10)])
        #expect(handoff.queued == (events: 20, bytes: 2 * batch.heldBytes))
        // Before the first run: a gap, read back up to seq 10.
        var (taken, next) = handoff.take(after: 5, limit: 100)
        #expect(taken.isEmpty && next == 11)
        // Partly applied already (a report read it back): the rest of it; then the gap before 31.
        (taken, next) = handoff.take(after: 14, limit: 3)
        #expect(taken.map(\.range) == [4..<7] && taken.map(\.firstSeq) == [15] && next == 18)
        (taken, next) = handoff.take(after: 17, limit: 100)
        #expect(taken.map(\.range) == [7..<10] && next == 31)
        (taken, next) = handoff.take(after: 30, limit: 100)
        #expect(taken.map(\.range) == [0..<10] && next == nil && handoff.queued == (events: 0, bytes: 0))
        // Past the bound in bytes, an offer is dropped, not waited for.
        let many = (0..<30).map { StoredRun(batch: batch, first: 41 + 10 * Int64($0), count: 10) }
        handoff.offer(many)
        #expect(handoff.queued == (events: 250, bytes: 25 * batch.heldBytes))
        handoff.clear()
        #expect(handoff.queued == (events: 0, bytes: 0) && handoff.take(after: 40, limit: 10).taken.isEmpty)
        // Nothing is held by a hand-off of no bytes.
        let none = RollupHandoff(maxBytes: 0)
        none.offer([StoredRun(batch: batch, first: 1, count: 10)])
        #expect(none.queued == (events: 0, bytes: 0))
    }

    /// The bound is in bytes, not events: a batch of large events counts its size, so the
    /// hand-off of a store holds less of them, and what it drops is read back the same.
    @Test(.timeLimit(.minutes(3))) func largeEventsAreBoundedByTheirBytes() throws {
        let small = PendingBatch(EventBatch(appKey: "a", events: [TrackEvent(id: "s", ts: 1, type: .click, name: "n").json]), receivedAt: 0)
        let bigProps = String(repeating: "x", count: 20_000)
        func big(_ i: Int) -> EventBatch {
            EventBatch(
                appKey: "shop",
                events: (0..<5).map { j in
                    var e = TrackEvent(id: "big\(i)-\(j)", ts: AnalyticsFixture.day0 + Int64(i * 5 + j) * 1_000, type: .click, name: "tap", path: "V/B", user: "u\(j)").json
                    if case .object(var o) = e {
                        o["props"] = .object(JSONObject([("title", .string("Buy")), ("note", .string(bigProps))]))
                        e = .object(o)
                    }
                    return e
                })
        }
        let one = PendingBatch(big(0), receivedAt: 0)
        #expect(one.heldBytes > 5 * 20_000 && one.heldBytes > 100 * small.heldBytes)
        let batches = (0..<12).map(big)
        // Room for four of them: the rest read back.
        let bounded = try store(batches, "big", handoffBytes: 4 * one.heldBytes + one.heldBytes / 2)
        let readBack = try store(batches, "big-read-back", handoffBytes: 0)
        #expect(bounded.stored == 60)
        for part in RollupPart.allCases { #expect(bounded.fromMemory[part] == 20, "\(part)") }
        let a = try tables(bounded.path), b = try tables(readBack.path)
        #expect(a == b)
    }

    @Test func theTitleFromMemoryIsTheOneSQLiteGives() throws {
        let db = try SQLiteDatabase(path: temporaryPath("titles"), mode: .readWriteCreate)
        let props = [
            #"{}"#, #"{"title":"Buy"}"#, #"{"title":3}"#, #"{"title":null}"#, #"{"title":true}"#, #"{"title":{"a":1}}"#, #"{"title":["x"]}"#,
            #"{"ti\u0074le":"Escaped"}"#, #"{"title":"a\"b\\c\u00e9\ud83d\ude00"}"#, #"{"a":{"title":"Nested"}}"#, #"{"subtitle":"x"}"#,
            #"{"titles":"x"}"#, #"{"x":"title"}"#, #"{"title":""}"#, #"{"a":1,"title":"Last"}"#, #"{"title":"ü"}"#,
        ]
        var texts = RollupTexts()
        try db.execute("CREATE TABLE props (props TEXT)")
        for p in props {
            // What the read back from `events` gives: `titleSQL` over the stored column.
            try db.execute("DELETE FROM props; INSERT INTO props VALUES ('\(p.replacingOccurrences(of: "'", with: "''"))')")
            let s = try db.statement("SELECT \(SQLiteEventStore.titleSQL(props: "props")) AS t FROM props")
            #expect(try s.step())
            let expected = s.bytes(0).map { String(decoding: $0, as: UTF8.self) }
            s.reset()
            let bytes = Array(p.utf8)
            let fromMemory = try bytes.withUnsafeBufferPointer { b throws(SQLiteError) in try RollupEvent.title(b, db: db, texts: &texts)?.string }
            #expect(fromMemory == expected, "\(p)")
        }
    }

    /// A JSON object text of seeded members: keys near `title` (and `title` again), values of
    /// every kind, objects and arrays holding `title`, white space anywhere, escapes in some.
    static func generatedProps(_ rng: inout SeededGenerator, depth: Int = 0) -> String {
        func space() -> String { ["", "", " ", "\n ", "\t", "  \r\n"].randomElement(using: &rng)! }
        func string() -> String {
            let pieces = ["Buy", "", "ü", "😀", "title", "a b", ":", ",", "{", "]", "\\\"", "\\u0074", "\\n"]
            let withEscapes = Int.random(in: 0..<8, using: &rng) == 0
            let chosen = (0..<Int.random(in: 0...3, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }
            return "\"" + chosen.filter { withEscapes || !$0.contains("\\") }.joined() + "\""
        }
        func value() -> String {
            switch Int.random(in: 0..<9, using: &rng) {
            case 0, 1: return string()
            case 2: return ["0", "-1", "3.5", "1e3", "-0.25E-2", "12345678901234567890"].randomElement(using: &rng)!
            case 3: return ["true", "false", "null"].randomElement(using: &rng)!
            case 4, 5: return depth < 2 ? generatedProps(&rng, depth: depth + 1) : "{}"
            default:
                let items = (0..<Int.random(in: 0...3, using: &rng)).map { _ in depth < 2 ? value() : "1" }
                return "[" + space() + items.joined(separator: space() + "," + space()) + space() + "]"
            }
        }
        let keys = ["\"title\"", "\"title\"", "\"titles\"", "\"subtitle\"", "\"Title\"", "\"x\"", "\"ti\\u0074le\"", "\"tit\"", "\"\""]
        let members = (0..<Int.random(in: 0...5, using: &rng)).map { _ in
            keys.randomElement(using: &rng)! + space() + ":" + space() + value()
        }
        return space() + "{" + space() + members.joined(separator: space() + "," + space()) + space() + "}" + space()
    }

    @Test func theTitleOfGeneratedPropsIsTheOneSQLiteGives() throws {
        let db = try SQLiteDatabase(path: temporaryPath("generated-titles"), mode: .readWriteCreate)
        var rng = SeededGenerator(seed: 0x7171_2026)
        var texts = RollupTexts()
        let sql = try db.statement("SELECT \(SQLiteEventStore.titleSQL(props: "?1")) AS t")
        var read = (here: 0, bySQLite: 0)
        for _ in 0..<5_000 {
            let p = Self.generatedProps(&rng)
            let bytes = Array(p.utf8)
            // The props as stored are valid JSON: the generator's are, by SQLite's judgement.
            try sql.bind([.text(p)])
            #expect(try sql.step(), "\(p)")
            let expected = sql.bytes(0).map { String(decoding: $0, as: UTF8.self) }
            sql.reset()
            let fromMemory = try bytes.withUnsafeBufferPointer { b throws(SQLiteError) in try RollupEvent.title(b, db: db, texts: &texts)?.string }
            #expect(fromMemory == expected, "\(p)")
            let scannedHere = bytes.withUnsafeBufferPointer { b in !p.contains("\\") && RollupEvent.mayHoldTitle(b) && TitleScan.title(b) != nil }
            if scannedHere { read.here += 1 } else { read.bySQLite += 1 }
        }
        // Both ways are taken many times: the scan for most, SQLite for escapes and no title.
        #expect(read.here > 1_000 && read.bySQLite > 200, "\(read)")
    }
}
