import EventModel
import EventStore
import Foundation
import StoreSQL
import SystemCalls
import Testing
import TestSupport

@testable import SQLiteStore

/// The ingest log's file (IngestLog.swift, IngestLogFormat.swift): records read back as written
/// after a reopen; a write a crash cut short is cut off and the log goes on; a compaction keeps
/// exactly the records not yet stored, also across a reopen; a log of layout 1 (SQLite) is
/// converted with its records.
@Suite struct IngestLogFileTests {
    static let logID = "0123456789abcdef0123456789abcdef"

    /// A batch of `count` events named `label-i`, as an append logs it.
    static func record(_ label: String, count: Int = 3) -> [UInt8] {
        LoggedBatch.encode(EventBatch(appKey: "shop", events: (0..<count).map { event("\(label)-\($0)") }), receivedAt: 1_000)
    }

    static func open(_ database: String, compactBytes: UInt64 = StoreTuning.logCompactBytes) throws -> IngestLog {
        let lock = try #require(try IngestLock.acquire(database: database, handover: .seconds(1)))
        do throws(IngestLog.OpenFailure) {
            return try IngestLog.open(database: database, logID: logID, lock: lock, compactBytes: compactBytes)
        } catch {
            Issue.record("open failed: \(error)")
            throw StoreError(.failed, "open failed")
        }
    }

    /// The ids of the first event of each record after `position`, in order.
    static func firstIDs(_ log: IngestLog, after position: Int64 = 0) throws -> [String] {
        let read = try log.records(after: position)
        #expect(read.unreadable.isEmpty)
        return read.records.map { $0.batch.eventList.values.first?["id"]?.stringValue ?? "?" }
    }

    @Test func recordsReadBackAfterAReopenWithTheirCounts() throws {
        let db = temporaryDatabase("log-file-reopen")
        do {
            let log = try Self.open(db)
            try log.append([(1, Self.record("a"), BatchOutcome(stored: 3)), (2, Self.record("b"), BatchOutcome(stored: 2, duplicates: 1))], deletingThrough: 0)
            try log.append([(3, Self.record("c"), BatchOutcome(stored: 3))], deletingThrough: 0)
            log.close()
        }
        let log = try Self.open(db)
        defer { log.close() }
        #expect(log.lastPosition() == 3)
        let read = try log.records(after: 1)
        #expect(read.records.map(\.position) == [2, 3])
        #expect(read.records.map(\.stored) == [2, 3])
        #expect(read.records.map(\.duplicates) == [1, 0])
        #expect(try Self.firstIDs(log) == ["a-0", "b-0", "c-0"])
        #expect(try IngestLog.lastPosition(database: db) == 3)
    }

    /// A crash in the middle of a write leaves part of a record: it is no record, and the next
    /// append writes over it.
    @Test func aWriteCutShortIsCutOffAndTheLogGoesOn() throws {
        let db = temporaryDatabase("log-file-torn")
        do {
            let log = try Self.open(db)
            try log.append([(1, Self.record("a"), BatchOutcome(stored: 3)), (2, Self.record("b"), BatchOutcome(stored: 3))], deletingThrough: 0)
            log.close()
        }
        let whole = try #require(FileManager.default.contents(atPath: db + "-ingest"))
        // Half of a third record (its header and part of its batch), as a killed write leaves it.
        var third: [UInt8] = []
        IngestLogFormat.appendRecord(position: 3, stored: 3, duplicates: 0, payload: Self.record("c"), to: &third)
        try (whole + Data(third.prefix(third.count / 2))).write(to: URL(fileURLWithPath: db + "-ingest"))
        do {
            let log = try Self.open(db)
            #expect(log.lastPosition() == 2)
            #expect(try Self.firstIDs(log) == ["a-0", "b-0"])
            try log.append([(3, Self.record("d"), BatchOutcome(stored: 3))], deletingThrough: 0)
            log.close()
        }
        let log = try Self.open(db)
        defer { log.close() }
        #expect(try Self.firstIDs(log) == ["a-0", "b-0", "d-0"])
        let size = try #require(try FileManager.default.attributesOfItem(atPath: db + "-ingest")[.size] as? Int)
        var expected = whole.count
        var d: [UInt8] = []
        IngestLogFormat.appendRecord(position: 3, stored: 3, duplicates: 0, payload: Self.record("d"), to: &d)
        expected += d.count
        #expect(size == expected, "the torn bytes are gone")
    }

    /// Past the compaction size with half of it stored, the file keeps only what is not stored
    /// yet, and a reopen reads exactly that; the stored records never come back.
    @Test func aCompactionKeepsExactlyTheRecordsNotYetStored() throws {
        let db = temporaryDatabase("log-file-compact")
        let one = Self.record("x", count: 40).count + IngestLogFormat.recordHeaderSize
        let compactBytes = UInt64(one * 10)
        var sizes: [Int] = []
        do {
            let log = try Self.open(db, compactBytes: compactBytes)
            var position: Int64 = 0
            for round in 0..<30 {
                var records: [(position: Int64, record: [UInt8], outcome: BatchOutcome)] = []
                for _ in 0..<2 {
                    position += 1
                    records.append((position, Self.record("r\(position)", count: 40), BatchOutcome(stored: 40)))
                }
                // Stored in `events` so far: all but the last 3 records.
                try log.append(records, deletingThrough: max(0, position - 2 - 3))
                sizes.append(try #require(try FileManager.default.attributesOfItem(atPath: db + "-ingest")[.size] as? Int))
                _ = round
            }
            #expect(log.lastPosition() == 60)
            log.close()
        }
        #expect(sizes.max()! < one * 10 + one * 4 + IngestLogFormat.headerSize, "the file stays near the compaction size: \(sizes)")
        #expect(sizes.last! < sizes.max()!, "a compaction shrank the file")
        #expect(!FileManager.default.fileExists(atPath: db + "-ingest.new"))
        let log = try Self.open(db)
        defer { log.close() }
        // Everything after position 55 (stored through 55) is there, in order.
        #expect(try Self.firstIDs(log, after: 55) == (56...60).map { "r\($0)-0" })
        let held = try log.records(after: 0).records.map(\.position)
        #expect(held.first! <= 56 && held.last == 60 && held == Array(held.first!...60))
    }

    /// A crash during a compaction, before its rename, leaves the new file beside the log: the
    /// next open removes it and reads the log as it was.
    @Test func aCompactionsNewFileLeftByACrashIsRemoved() throws {
        let db = temporaryDatabase("log-file-leftover")
        do {
            let log = try Self.open(db)
            try log.append([(1, Self.record("a"), BatchOutcome(stored: 3))], deletingThrough: 0)
            log.close()
        }
        try Data("half a compaction".utf8).write(to: URL(fileURLWithPath: db + "-ingest.new"))
        let log = try Self.open(db)
        defer { log.close() }
        #expect(!FileManager.default.fileExists(atPath: db + "-ingest.new"))
        #expect(try Self.firstIDs(log) == ["a-0"])
    }

    /// A log left by a collector of layout 1 (an SQLite file with its write-ahead log) is
    /// converted at open: its records are read as they were, its -wal and -shm go.
    @Test func aLogOfLayout1IsConvertedWithItsRecords() throws {
        let db = temporaryDatabase("log-file-layout1")
        let path = db + "-ingest"
        do {
            let old = try SQLiteDatabase(path: path, mode: .readWriteCreate)
            _ = try old.scalar("PRAGMA journal_mode = WAL", as: String.self)
            try old.execute("CREATE TABLE log (position INTEGER PRIMARY KEY, batch BLOB NOT NULL, stored INTEGER NOT NULL, duplicates INTEGER NOT NULL)")
            try old.execute("CREATE TABLE meta (id INTEGER PRIMARY KEY CHECK (id = 1), log_id TEXT NOT NULL)")
            _ = try old.run("INSERT INTO meta VALUES (1, ?)", [.text(Self.logID)])
            for (p, label) in [(Int64(7), "old-a"), (8, "old-b")] {
                _ = try old.run("INSERT INTO log VALUES (?, ?, 3, ?)", [.int(p), .blob(Self.record(label)), .int(p == 8 ? 1 : 0)])
            }
            old.keepWriteAheadLogOnClose()  // as a killed collector leaves it
        }
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(try IngestLog.lastPosition(database: db) == 8, "a reader reads a log of layout 1 as it is")
        let log = try Self.open(db)
        defer { log.close() }
        #expect(try Self.firstIDs(log) == ["old-a-0", "old-b-0"])
        #expect(try log.records(after: 0).records.map(\.duplicates) == [0, 1])
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
        #expect(try IngestLog.lastPosition(database: db) == 8)
    }

    /// A scribbled header is damage, said as such; a record with a scribbled byte ends what is read.
    @Test func aScribbledRecordEndsWhatIsRead() throws {
        let db = temporaryDatabase("log-file-scribbled")
        do {
            let log = try Self.open(db)
            try log.append((1...3).map { ($0, Self.record("s\($0)"), BatchOutcome(stored: 3)) }, deletingThrough: 0)
            log.close()
        }
        var bytes = try #require(FileManager.default.contents(atPath: db + "-ingest"))
        let second = IngestLogFormat.headerSize + Self.record("s1").count + IngestLogFormat.recordHeaderSize
        bytes[second + IngestLogFormat.recordHeaderSize + 20] ^= 0x40  // a byte of the second batch
        try bytes.write(to: URL(fileURLWithPath: db + "-ingest"))
        let log = try Self.open(db)
        defer { log.close() }
        #expect(log.lastPosition() == 1)
        #expect(try Self.firstIDs(log) == ["s1-0"])
    }
}
