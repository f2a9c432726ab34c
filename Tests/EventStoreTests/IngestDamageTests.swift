import EventModel
import EventStore
import Foundation
import SystemCalls
import Testing
import TestSupport

@testable import SQLiteStore

/// A damaged or missing ingest log never loses acknowledged events silently (docs/collector.md,
/// "A damaged ingest log"): with batches waiting in the log (a child store killed before storing
/// any), its file deleted, cut in half or written over. The store, and the real `serve`, refuse
/// to open saying how many batches are missing and which positions, changing nothing; with
/// `acceptIngestLoss` (`serve --accept-ingest-loss`) they keep the damaged file aside, store what
/// the log still holds and say so; the next open is clean.
@Suite struct IngestDamageTests {
    /// Valid events of the child's batches by position (`IngestLogTests.loggingChild`): eight of
    /// the agent's, then three of a third party's.
    static let validPerBatch = Array(repeating: 50, count: 8) + [2, 1, 1]

    /// A database whose log holds every batch the killed child acknowledged, none stored.
    static func killedChild(_ label: String) throws -> String {
        let path = temporaryDatabase(label)
        let child = try #require(
            try ChildTest.killed(
                "loggingChild", variable: IngestLogTests.childVariable, value: path, marker: IngestLogTests.marker),
            "the child never appended")
        #expect(child.ended == .signalled(SIGKILL))
        return path
    }

    enum Damage: String, CaseIterable {
        case deleted, cutInHalf, writtenOver

        func apply(to log: String) throws {
            let size = try #require(try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int)
            #expect(size > 20_000, "the log holds the batches (\(size) bytes)")
            switch self {
            case .deleted: try FileManager.default.removeItem(atPath: log)
            case .cutInHalf: try FileHandle(forWritingTo: URL(fileURLWithPath: log)).truncate(atOffset: UInt64(size / 2))
            case .writtenOver:
                var generator = SeededGenerator(seed: 36)
                let noise = (0..<20_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
                try handle.seek(toOffset: UInt64(size / 3))
                try handle.write(contentsOf: noise)
                try handle.close()
            }
        }
    }

    /// `autotrack-collector serve` on `path`, with `extra` arguments: its exit status and
    /// standard error once it stopped (SIGTERM once it listens).
    static func serve(_ path: String, _ extra: [String] = []) throws -> (status: Int32, err: String, listened: Bool) {
        let binary = Fixtures.repositoryRoot.appendingPathComponent(".build/debug/autotrack-collector")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "run `swift build` first (Tools/test.sh does)")
        let out = Pipe()
        let err = Pipe()
        let process = try ChildProgram(
            binary.path, arguments: ["serve", "--listen", "127.0.0.1:0", "--db", path] + extra,
            standardOutput: .descriptor(out.fileHandleForWriting.fileDescriptor),
            standardError: .descriptor(err.fileHandleForWriting.fileDescriptor))
        try out.fileHandleForWriting.close()
        try err.fileHandleForWriting.close()
        // The first line, or the end of output: bounded by the process's life and a 30 s watch.
        let watch = Thread {
            if process.waitForExit(within: .seconds(30)) == nil { process.terminate() }
        }
        watch.start()
        let first = out.fileHandleForReading.availableData
        let listened = String(decoding: first, as: UTF8.self).hasPrefix("listening on ")
        process.terminate()
        let errText = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (process.waitForExit().shellStatus, errText, listened)
    }

    static func missingCount(in message: String) -> Int? {
        guard let range = message.range(of: #"(\d+) acknowledged batch(es are| is) missing"#, options: .regularExpression) else { return nil }
        return Int(message[range].prefix { $0.isNumber })
    }

    @Test(.timeLimit(.minutes(3)), arguments: Damage.allCases)
    func aLogThatLostAcknowledgedBatchesIsRefusedSayingWhatThenRecoveredOnRequest(_ damage: Damage) throws {
        let path = try Self.killedChild("ingest-damage-\(damage.rawValue)")
        try damage.apply(to: path + "-ingest")
        // The log as found (not there at all when deleted).
        func logFiles() -> [Data?] { [FileManager.default.contents(atPath: path + "-ingest")] }
        let before = logFiles()

        // Refused, saying what is missing and what to do; nothing changed.
        let refused = #expect(throws: StoreError.self) { try SQLiteEventStore(path: path) }
        #expect(refused?.code == .damaged)
        let message = refused?.message ?? ""
        #expect(message.contains("the ingest log \(path)-ingest ends short of what this collector acknowledged"), "\(message)")
        #expect(message.contains("positions "))
        #expect(message.contains("the last acknowledged at "))
        #expect(message.contains("--accept-ingest-loss"))
        let missing = try #require(Self.missingCount(in: message), "\(message)")
        #expect(missing >= 1 && missing <= 11)
        if damage == .deleted { #expect(missing == 11) }
        #expect(logFiles() == before, "the damaged log was changed by a refused open")

        // The real serve says the same and exits 1 without listening.
        let run = try Self.serve(path)
        #expect(run.status == 1 && !run.listened)
        #expect(run.err.contains("ends short of what this collector acknowledged"), "\(run.err)")
        #expect(logFiles() == before, "the damaged log was changed by a refused serve")

        // Accepted: the damaged files kept, what the log held stored, the loss said once.
        let accepting = try Self.serve(path, ["--accept-ingest-loss"])
        #expect(accepting.listened, "\(accepting.err)")
        #expect(accepting.err.contains("warning: the ingest log \(path)-ingest ends short"), "\(accepting.err)")
        // A log that is gone has nothing to keep aside.
        let kept = try FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent)
            .filter { $0.hasPrefix((path as NSString).lastPathComponent + "-ingest.damaged-") }
        #expect(kept.count == (damage == .deleted ? 0 : 1))
        #expect(accepting.err.contains("It was kept as \(path)-ingest.damaged-") == (damage != .deleted), "\(accepting.err)")

        // The next open is clean, and counts the batches the log still held: the first ones.
        let store = try SQLiteEventStore(path: path)
        defer { store.close() }
        #expect(store.openingNotices.isEmpty)
        let batches = try #require(Int(try sqlite(path, "SELECT COUNT(*) FROM batches").first ?? ""))
        #expect(batches + missing == 11)
        #expect(try store.totals(.all).events == Self.validPerBatch.prefix(batches).reduce(0, +))
        #expect(try store.append(EventBatch(appKey: "shop", events: [event("after-recovery")])) == BatchOutcome(stored: 1))
    }

    /// Report rollups and an empty ingest log are derived or hold nothing waiting: damaged, each
    /// is named with its repair (never "not an Autotrack database"), and a writable open keeps it
    /// aside and makes it anew; every event still counts.
    @Test func damagedRollupsAndAnEmptyLogAreNamedKeptAsideAndMadeAnew() throws {
        let path = temporaryDatabase("ingest-companions")
        do {
            let store = try SQLiteEventStore(path: path)
            _ = try store.append(EventBatch(appKey: "shop", events: (0..<40).map { event("c\($0)") }))
            #expect(try store.totals(.all).events == 40)
            store.close()
        }
        func scribble(_ file: String) throws {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
            try handle.write(contentsOf: Data("scribbled over by a test of damaged files".utf8))
            try handle.close()
        }
        try scribble(path + "-rollups")
        try FileHandle(forWritingTo: URL(fileURLWithPath: path + "-rollups-pages")).truncate(atOffset: 10_000)

        let reading = #expect(throws: StoreError.self) { try SQLiteEventStore(path: path, options: StoreOptions(access: .readOnly)) }
        #expect(reading?.message.contains("\(path)-rollups is damaged; it holds report rollups derived from the events, so nothing is lost") == true)
        #expect(reading?.message.contains("not an Autotrack database") == false, "\(reading?.message ?? "")")

        try scribble(path + "-ingest")
        let lost = #expect(throws: StoreError.self) { try IngestLog.lastPosition(database: path) }
        #expect(lost?.message.contains("the ingest log \(path)-ingest cannot be read") == true)

        let store = try SQLiteEventStore(path: path)
        defer { store.close() }
        let notices = store.openingNotices
        #expect(notices.count == 3, "\(notices)")
        #expect(notices.contains { $0.contains("the report rollups file \(path)-rollups was damaged") && $0.contains("kept as \(path)-rollups.damaged-") })
        #expect(notices.contains { $0.contains("the report rollups file \(path)-rollups-pages was damaged") })
        #expect(notices.contains { $0.contains("every batch it acknowledged (up to position 1) is stored in the database already") })
        #expect(try store.totals(.all).events == 40)
        #expect(try store.append(EventBatch(appKey: "shop", events: [event("c1"), event("new")])) == BatchOutcome(stored: 1, duplicates: 1))
    }

    @Test func gapsAreTheMissingPositionsAsRanges() {
        #expect(IngestRecovery.gaps(after: 3, through: 10, present: [4, 5, 8]) == [6...7, 9...10])
        #expect(IngestRecovery.gaps(after: 0, through: 3, present: [1, 2, 3]) == [])
        #expect(IngestRecovery.gaps(after: 5, through: 5, present: []) == [])
        #expect(IngestRecovery.gaps(after: 0, through: 2, present: []) == [1...2])
    }
}
