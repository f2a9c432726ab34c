import EventModel
import EventStore
import Foundation
import StoreSQL
import SystemCalls
import Testing
import TestSupport

@testable import SQLiteStore

/// The SQLite store's ingest log (docs/schema.md, "The ingest log"): an append is acknowledged
/// once its batch is durable in `PATH-ingest`; `events` follows behind; every read counts every
/// acknowledged event; the `ACK`'s duplicates are exact across the log and the table; one store
/// owns the log; a crash loses nothing.
@Suite struct IngestLogTests {
    /// Events stored in `events` as a raw reader of the file sees them (no wait for the log).
    static func eventsInTable(_ path: String) throws -> Int {
        let db = try SQLiteDatabase(path: path, mode: .readOnly)
        return try db.scalar("SELECT COUNT(*) FROM events", as: Int.self) ?? -1
    }

    static func batch(_ prefix: String, _ count: Int, app: String = "shop") -> EventBatch {
        EventBatch(appKey: app, events: (0..<count).map { event("\(prefix)\($0)") })
    }

    @Test func anAcknowledgedBatchWaitsInTheLogAndEveryReadCountsIt() throws {
        let path = temporaryDatabase("ingest-read")
        let store = try SQLiteEventStore(path: path)
        defer { store.close() }
        store.pauseIngestStoring(true)
        #expect(try store.append(Self.batch("a", 30)) == BatchOutcome(stored: 30))
        #expect(try store.append(Self.batch("b", 20)) == BatchOutcome(stored: 20))
        #expect(store.batchesWaitingInLog == 2)
        #expect(try Self.eventsInTable(path) == 0, "acknowledged, in the log, not yet in events")
        // A read stores what waits first, so it counts every acknowledged event.
        #expect(try store.totals(.all).events == 50)
        #expect(store.batchesWaitingInLog == 0)
        #expect(try Self.eventsInTable(path) == 50)
        #expect(try sqlite(path, "SELECT stored, duplicates FROM batches ORDER BY seq") == ["30|0", "20|0"])
    }

    @Test func duplicatesAreExactAcrossTheLogTheTableAndTheBatch() throws {
        let path = temporaryDatabase("ingest-dedup")
        let store = try SQLiteEventStore(path: path)
        defer { store.close() }
        store.pauseIngestStoring(true)
        #expect(try store.append(Self.batch("a", 10)) == BatchOutcome(stored: 10))
        // Repeats of a batch still in the log, and a repeat within the batch itself.
        let mixed = EventBatch(appKey: "shop", events: [event("a1"), event("new1"), event("new1"), event("a9"), event("new2")])
        #expect(try store.append(mixed) == BatchOutcome(stored: 2, duplicates: 3))
        // The same id under another app key is another event.
        #expect(try store.append(EventBatch(appKey: "other", events: [event("a1")])) == BatchOutcome(stored: 1))
        #expect(try store.totals(.all).events == 13)  // everything stored in events now
        #expect(store.batchesWaitingInLog == 0)
        // Repeats of stored events: found in the table.
        #expect(try store.append(EventBatch(appKey: "shop", events: [event("a2"), event("new2"), event("fresh")])) == BatchOutcome(stored: 1, duplicates: 2))
        #expect(try store.totals(.all).events == 14)
        #expect(try sqlite(path, "SELECT COUNT(*), COUNT(DISTINCT app_key || '|' || id) FROM events") == ["14|14"])
    }

    /// Steady appends are stored in `events` and rolled up as they come, while they go on: at
    /// half-way another thread stores what waits then, as a read would; after it, the thread
    /// stores the later appends without any read. (Bounded by its own clocks, about 3 s and at
    /// most 25.)
    @Test func steadyAppendsAreStoredAndRolledUpWhileTheyGoOn() throws {
        let path = temporaryDatabase("ingest-steady")
        let store = try SQLiteEventStore(path: path)
        defer { store.close() }
        let clock = ContinuousClock()
        let halfWayAt = clock.now + .milliseconds(400)
        let appendUntil = clock.now + .seconds(1)
        var batches = 0
        var halfWay: (byThread: Int, waiting: Int)?
        let storedByOther = DispatchSemaphore(value: 0)
        while clock.now < appendUntil && batches < 2000 {
            _ = try store.append(Self.batch("b\(batches)-", 5))
            batches += 1
            if halfWay == nil && clock.now >= halfWayAt {
                let waiting = store.batchesWaitingInLog
                halfWay = (try Self.eventsInTable(path), waiting)
                Posix.startThread(name: "test-read") {
                    _ = try? store.storeLogged(limit: waiting)
                    storedByOther.signal()
                }
            }
        }
        let half = try #require(halfWay)
        #expect(storedByOther.wait(timeout: .now() + 10) == .success)
        let appendedAfter = 5 * (batches - half.waiting) - half.byThread
        let storedAfter = try Self.eventsInTable(path) - half.byThread - 5 * half.waiting
        #expect(appendedAfter >= 50)
        #expect(storedAfter > 0, "the thread left steady appends in the log")
        let deadline = clock.now + .seconds(10)
        while store.batchesWaitingInLog > 0 && clock.now < deadline { Posix.sleep(.milliseconds(20)) }
        let stored = try Self.eventsInTable(path)
        #expect(stored == 5 * batches, "the thread did not store every acknowledged event")
        while try store.rollupPositions().watermark < Int64(stored) && clock.now < deadline { Posix.sleep(.milliseconds(20)) }
        #expect(try store.rollupPositions().watermark == Int64(stored), "the rollups did not follow")
    }

    /// `events` follows the `ACK`s at any rate: when the oldest acknowledged batch has waited in
    /// the journal longer than `StoreTuning.maxStoreLag` (here: the storing thread paused), the
    /// next append stores what waits before it is acknowledged, so an outside reader's count is
    /// never more than that span of storing behind. No burst is left in the journal.
    @Test func anAppendStoresWhatWaitedTooLongBeforeItsACK() throws {
        let path = temporaryDatabase("ingest-lag")
        let store = try SQLiteEventStore(path: path)
        defer { store.close() }
        store.pauseIngestStoring(true, appendsKeepTheLagBound: true)
        #expect(try store.append(Self.batch("a", 30)) == BatchOutcome(stored: 30))
        #expect(try store.append(Self.batch("b", 20)) == BatchOutcome(stored: 20))
        #expect(try Self.eventsInTable(path) == 0, "acknowledged just now: they may wait in the journal")
        Posix.sleep(StoreTuning.maxStoreLag + .milliseconds(50))
        #expect(try store.append(Self.batch("c", 10)) == BatchOutcome(stored: 10))
        #expect(try Self.eventsInTable(path) >= 50, "an append left batches older than the bound in the journal")
        // Appends back to back with nobody else storing: the last append began at `started.last`,
        // and batch `i` was queued before append `i + 1` began; so every batch queued more than
        // the bound before the last began is in the table once it returns.
        let clock = ContinuousClock()
        let begin = clock.now
        var started: [ContinuousClock.Instant] = []
        // Until an append begins twice the bound after the second one began, however fast or slow
        // the disk (bounded by a count and 30 s): then some batch was queued more than the bound
        // before the last append began.
        while started.count < 20_000, clock.now - begin < .seconds(30) {
            let now = clock.now
            started.append(now)
            _ = try store.append(Self.batch("d\(started.count)-", 5))
            if started.count >= 3, now - started[1] > StoreTuning.maxStoreLag * 2 { break }
        }
        let counted = try Self.eventsInTable(path)
        let last = try #require(started.last)
        let i = try #require(started.indices.dropLast().last { last - started[$0 + 1] > StoreTuning.maxStoreLag })
        #expect(counted >= 60 + 5 * (i + 1), "\(counted) in events; \(60 + 5 * (i + 1)) acknowledged longer than the bound before")
        store.pauseIngestStoring(false)
    }

    /// The batches waiting in the journal are bounded in bytes (`SQLiteMemoryBounds.waitingBytes`),
    /// not in events: past the bound an append stores what waits before its `ACK`, whatever the
    /// age of the waiting batches, so large events wait in fewer batches than small ones.
    @Test func anAppendPastTheMemoryBoundStoresWhatWaitsFirst() throws {
        let path = temporaryDatabase("ingest-bytes")
        func batch(_ i: Int, noteBytes: Int) -> EventBatch {
            EventBatch(
                appKey: "shop",
                events: (0..<4).map { j in
                    event("w\(i)-\(j)", extra: [("props", .object(JSONObject([("note", .string(String(repeating: "n", count: noteBytes)))])))])
                })
        }
        let large = PendingBatch(batch(0, noteBytes: 50_000), receivedAt: 0).heldBytes
        let bound = 3 * large + large / 2
        let store = try SQLiteEventStore(path: path, memory: SQLiteMemoryBounds(waitingBytes: bound, handoffBytes: 0))
        defer { store.close() }
        // Nothing stores but the appends, and only for the bound in bytes.
        store.pauseIngestStoring(true)
        var waiting: [Int] = []
        for i in 0..<10 {
            #expect(try store.append(batch(i, noteBytes: 50_000)) == BatchOutcome(stored: 4))
            waiting.append(store.batchesWaitingInLog)
        }
        // Four batches are past the bound: the fifth append stores them first, and so on.
        #expect(waiting.max()! <= 4 && waiting.max()! >= 3, "\(waiting)")
        #expect(try Self.eventsInTable(path) >= 4 * (10 - 4), "past the bound, an append stored what waited")
        // Small events: many more batches wait under the same bound.
        #expect(try store.totals(.all).events == 40)
        for i in 10..<60 { _ = try store.append(batch(i, noteBytes: 10)) }
        #expect(store.batchesWaitingInLog == 50)
        #expect(try store.totals(.all).events == 240)
        store.pauseIngestStoring(false)
    }

    /// Batches as the agent and a third-party client send them count at least the bytes of their
    /// frame, as received and as read back from the ingest log; under a bound of about two such
    /// batches, appends store what waits first, and every event is counted once.
    @Test func batchesFromTheWireCountTheirBytesAgainstTheBound() throws {
        let payloads = [WireBatches.agentPayload("b-", 200)] + WireBatches.thirdPartyBodies.map(WireBatches.thirdPartyPayload)
        for payload in payloads {
            let batch = try WireBatches.batch(payload)
            let held = PendingBatch(batch, receivedAt: 0).heldBytes
            #expect(held >= payload.count - "EVENTS ".utf8.count, "\(held) for a payload of \(payload.count) bytes")
            let (back, _) = try LoggedBatch.encode(batch, receivedAt: 1).withUnsafeBytes { try LoggedBatch.decode($0) }
            #expect(PendingBatch(back, receivedAt: 0).heldBytes >= payload.count - "EVENTS ".utf8.count)
        }
        let one = PendingBatch(try WireBatches.batch(WireBatches.agentPayload("b-", 200)), receivedAt: 0).heldBytes
        let path = temporaryDatabase("ingest-wire-bytes")
        let store = try SQLiteEventStore(path: path, memory: SQLiteMemoryBounds(waitingBytes: 2 * one + one / 2, handoffBytes: one))
        defer { store.close() }
        store.pauseIngestStoring(true)
        var waiting: [Int] = []
        for i in 0..<8 {
            #expect(try store.append(WireBatches.batch(WireBatches.agentPayload("w\(i)-", 200, batch: i))) == BatchOutcome(stored: 200))
            waiting.append(store.batchesWaitingInLog)
        }
        #expect(waiting.max() == 3, "\(waiting)")
        for body in WireBatches.thirdPartyBodies { _ = try store.append(WireBatches.batch(WireBatches.thirdPartyPayload(body))) }
        store.pauseIngestStoring(false)
        #expect(try store.totals(.all).events == 8 * 200 + 4)
        #expect(try sqlite(path, "SELECT COUNT(*), COUNT(DISTINCT id) FROM events") == ["1604|1604"])
    }

    /// A store on `path` opened after another stored `first` there and closed.
    static func reopened(_ path: String, after first: EventBatch) throws -> SQLiteEventStore {
        let predecessor = try SQLiteEventStore(path: path)
        _ = try predecessor.append(first)
        predecessor.close()
        return try SQLiteEventStore(path: path)
    }

    @Test func aReopenedStoreCountsRepeatsOfWhatItsPredecessorStored() throws {
        let store = try Self.reopened(temporaryDatabase("ingest-reopen"), after: Self.batch("a", 40))
        defer { store.close() }
        #expect(try store.append(EventBatch(appKey: "shop", events: [event("a0"), event("a39"), event("b0")])) == BatchOutcome(stored: 1, duplicates: 2))
        #expect(try store.totals(.all).events == 41)
    }

    /// Once the filter of stored keys is built, a new key costs no lookup; a stored one is still
    /// found (the filter's "maybe" sends it to the table).
    @Test func theFilterSparesNewKeysTheLookupAndStillFindsRepeats() throws {
        let store = try Self.reopened(temporaryDatabase("ingest-filter"), after: Self.batch("old", 200))
        defer { store.close() }
        // The first append starts building the filter (a store that never appends never does).
        #expect(!store.dedupLookups.filterBuilt)
        #expect(try store.append(Self.batch("first", 1)) == BatchOutcome(stored: 1))
        let deadline = ContinuousClock.now + .seconds(20)
        while !store.dedupLookups.filterBuilt, ContinuousClock.now < deadline { Posix.sleep(.milliseconds(10)) }
        #expect(store.dedupLookups.filterBuilt)
        let before = store.dedupLookups.count
        #expect(try store.append(Self.batch("new", 300)) == BatchOutcome(stored: 300))
        let forNew = store.dedupLookups.count - before
        #expect(forNew < 30, "\(forNew) lookups for 300 new keys")
        #expect(try store.append(Self.batch("old", 200)) == BatchOutcome(duplicates: 200))
        #expect(store.dedupLookups.count - before - forNew == 200, "each repeat looked up")
    }

    @Test func aSecondStoreNeitherAppendsNorMissesWhatTheOwnerAcknowledged() throws {
        let path = temporaryDatabase("ingest-owner")
        let owner = try SQLiteEventStore(path: path)
        defer { owner.close() }
        let other = try SQLiteEventStore(path: path, options: StoreOptions(access: .existing))
        defer { other.close() }
        let refused = #expect(throws: StoreError.self) { try other.append(Self.batch("x", 1)) }
        #expect(refused?.code == .unavailable)
        #expect(refused?.message.contains("-ingest-lock is locked") == true)
        _ = try owner.append(Self.batch("a", 25))
        // The other store's read waits for the owner to store what it acknowledged.
        #expect(try other.totals(.all).events == 25)
        let reader = try SQLiteEventStore(path: path, options: StoreOptions(access: .readOnly))
        defer { reader.close() }
        _ = try owner.append(Self.batch("b", 5))
        #expect(try reader.totals(.all).events == 30)
        // A read-only store (a command) waits at its first read only: what is acknowledged after
        // it is counted once stored, not waited for by every later read.
        owner.pauseIngestStoring(true)
        _ = try owner.append(Self.batch("c", 7))
        #expect(try reader.totals(.all).events == 30)
        owner.pauseIngestStoring(false)
        let later = try SQLiteEventStore(path: path, options: StoreOptions(access: .readOnly))
        defer { later.close() }
        #expect(try later.totals(.all).events == 37)
    }

    // MARK: a collector killed with batches in the log

    static let childVariable = "AUTOTRACK_INGEST_CHILD"
    static let marker = "INGEST-CHILD-ACKED"

    /// The child: stores nothing in `events` (its storing thread paused), appends 8 batches to
    /// the database named in the environment, prints the marker once every append returned,
    /// then waits to be killed.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] != nil, "runs only as the child process"))
    func loggingChild() throws {
        let path = ProcessInfo.processInfo.environment[Self.childVariable]!
        let store = try SQLiteEventStore(path: path)
        store.pauseIngestStoring(true)
        // As the collector appends them: parsed from frames, the agent's and a third party's.
        for b in 0..<8 { _ = try store.append(try WireBatches.batch(WireBatches.agentPayload("child-\(b)-", 50, batch: b))) }
        for body in WireBatches.thirdPartyBodies { _ = try store.append(try WireBatches.batch(WireBatches.thirdPartyPayload(body))) }
        FileHandle.standardOutput.write(Data((Self.marker + "\n").utf8))  // unbuffered
        Thread.sleep(forTimeInterval: 60)  // killed long before
    }

    @Test(.timeLimit(.minutes(3)))
    func batchesLeftInTheLogByACrashAreStoredByTheNextOwnerAndReadersSaySo() throws {
        let path = temporaryDatabase("ingest-killed")
        let child = try #require(
            try ChildTest.killed("loggingChild", variable: Self.childVariable, value: path, marker: Self.marker), "the child never appended")
        #expect(child.ended == .signalled(SIGKILL))
        #expect(try Self.eventsInTable(path) == 0, "killed before storing any batch in events")

        // Nobody owns the log: a reader cannot count the 400 acknowledged events, and says how to fix it.
        let reader = try SQLiteEventStore(path: path, options: StoreOptions(access: .readOnly))
        let failure = #expect(throws: StoreError.self) { try reader.totals(.all) }
        #expect(failure?.code == .unavailable)
        #expect(failure?.message.contains("autotrack-collector serve --db \(path)") == true)
        reader.close()

        // The next owner stores them as they were acknowledged, and counts a resend of the last
        // agent batch as repeats.
        let store = try SQLiteEventStore(path: path)
        defer { store.close() }
        let total = try store.totals(.all).events
        #expect(total == 404)
        #expect(try store.append(Self.batch("child-7-", 50)) == BatchOutcome(duplicates: 50))
        #expect(try sqlite(path, "SELECT COUNT(*), SUM(stored), SUM(duplicates) FROM batches") == ["12|404|50"])
        #expect(try sqlite(path, "SELECT COUNT(DISTINCT id) FROM events WHERE id LIKE 'child-%'") == ["400"])
        #expect(try sqlite(path, "SELECT props FROM events WHERE id = 'child-3-7'") == [#"{"n":7,"sku":"k-7"}"#])
        #expect(try sqlite(path, "SELECT name, json_extract(props, '$.emoji') FROM events WHERE id = 'tp-a1'") == ["Buy \"now\"|\u{1F600}"])
        #expect(try sqlite(path, "SELECT name FROM events WHERE id = 'tp-c1'") == ["ünïcödé ✓"])
    }

    /// A database replaced while its log still holds batches (its collector killed) never gets
    /// that log's batches: the store refuses to open, saying what to do; a log a clean stop left
    /// empty is taken over by a new database.
    @Test(.timeLimit(.minutes(3)))
    func aLogLeftByAnotherDatabaseIsRefusedAndAnEmptyOneTakenOver() throws {
        let path = temporaryDatabase("ingest-foreign")
        _ = try #require(
            try ChildTest.killed("loggingChild", variable: Self.childVariable, value: path, marker: Self.marker), "the child never appended")
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let refused = #expect(throws: StoreError.self) { try SQLiteEventStore(path: path) }
        #expect(refused?.message.contains("holds batches of another database") == true)
        #expect(refused?.message.contains("move \(path)-ingest") == true)

        let clean = temporaryDatabase("ingest-taken-over")
        do {
            let store = try SQLiteEventStore(path: clean)
            _ = try store.append(Self.batch("a", 10))
            store.close()
        }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: clean + suffix) }
        let store = try SQLiteEventStore(path: clean)
        defer { store.close() }
        #expect(try store.append(Self.batch("a", 10)) == BatchOutcome(stored: 10))
        #expect(try store.totals(.all).events == 10)
    }
}

@Suite struct IngestRecordTests {
    /// A batch read back from its log record gives the same events, refusals and sender.
    @Test func aLoggedBatchReadsBackTheSame() throws {
        let values: [JSONValue] = [
            event("a", extra: [("props", .object(JSONObject([("k", .string("v\u{e9}\"q"))])))]), .string("not an event"), event("b", type: "nope"),
        ]
        let body = Array(#"{"batch":"b1","events":[{"id":"x1","type":"click","name":"n","ts":5,"props":{"a":[1,2.5,null]}},7,{"id":"x\u00e92","type":"page_enter","name":"p","ts":6}]}"#.utf8)
        let fromBytes = try #require(try EventList.parseBody(body[...], eventsMember: "events").events)
        for list in [EventList(values), fromBytes] {
            let batch = EventBatch(appKey: "shop", appVersion: "1.2", agent: nil, label: "\"b1\"", sentAt: 1_000, eventList: list)
            let record = LoggedBatch.encode(batch, receivedAt: 1_234)
            let (back, receivedAt) = try record.withUnsafeBytes { try LoggedBatch.decode($0) }
            #expect(receivedAt == 1_234)
            #expect(back.appKey == "shop" && back.appVersion == "1.2" && back.agent == nil && back.label == "\"b1\"" && back.sentAt == 1_000)
            #expect(back.eventList.received == list.received)
        }
    }

    /// Every batch as it comes off the wire, from the agent's encoder and from a third-party
    /// client's, reads back from its log record as the very events it acknowledged.
    @Test func aBatchFromTheWireReadsBackFromItsRecordAsAcknowledged() throws {
        let payloads = [WireBatches.agentPayload("w-", 25)] + WireBatches.thirdPartyBodies.map(WireBatches.thirdPartyPayload)
        for payload in payloads {
            let batch = try WireBatches.batch(payload)
            let record = LoggedBatch.encode(batch, receivedAt: 77)
            let (back, receivedAt) = try record.withUnsafeBytes { try LoggedBatch.decode($0) }
            #expect(receivedAt == 77)
            #expect(back.appKey == batch.appKey && back.label == batch.label && back.sentAt == batch.sentAt)
            #expect(back.eventList.received == batch.eventList.received, "\(String(decoding: payload, as: UTF8.self).prefix(80))")
            #expect(back.eventList.values == batch.eventList.values)
        }
    }

    @Test func aRecordCutShortOrOfAnotherFormatIsAnError() throws {
        let record = LoggedBatch.encode(EventBatch(appKey: "shop", events: [event("a")]), receivedAt: 1)
        for broken in [Array(record.prefix(12)), [9] + record.dropFirst(), Array(record.dropLast())] {
            let failure = #expect(throws: StoreError.self) { try broken.withUnsafeBytes { try LoggedBatch.decode($0) } }
            #expect(failure?.message.contains("a batch in the ingest log cannot be read") == true)
        }
    }
}

@Suite struct EventIdFilterTests {
    @Test func noKeyInsertedIsEverAnsweredNoAndFewOthersMaybe() {
        var filter = EventIdFilter(capacity: 50_000)
        let key = EventKeyHash(appKey: "shop")
        func hash(_ s: String) -> UInt64 { Array(s.utf8).withUnsafeBytes { key.hash(id: $0) } }
        for i in 0..<50_000 { filter.insert(hash("in-\(i)")) }
        #expect((0..<50_000).allSatisfy { filter.mayContain(hash("in-\($0)")) })
        let falseMaybes = (0..<50_000).filter { filter.mayContain(hash("out-\($0)")) }.count
        #expect(falseMaybes < 1_500, "\(falseMaybes) of 50,000 keys never inserted answered maybe")
    }

    @Test func theHashTellsAppKeysAndIdsApartAtTheirBoundary() {
        func hash(_ app: String, _ id: String) -> UInt64 { Array(id.utf8).withUnsafeBytes { EventKeyHash(appKey: app).hash(id: $0) } }
        #expect(hash("ab", "c") != hash("a", "bc"))
        #expect(hash("shop", "a") == hash("shop", "a"))
        #expect(hash("shop", "a") != hash("shop", "b"))
    }
}
