import EventModel
import EventStore
import Foundation
import SystemCalls
import Testing
import TestSupport

@testable import SQLiteStore

/// A disk that fills (docs/collector.md, "A full disk"): on a 48 MiB filesystem of the test's
/// own (tmpfs, mounted and unmounted here), appends with the storing thread held back are
/// refused (`unavailable`, the sender keeps the batch) before the store could not keep what it
/// acknowledged; a read then stores every acknowledged event; once space is freed, what waits is
/// stored first and appends are taken again.
@Suite(.serialized) struct FullDiskTests {
    /// Runs `body` with a folder on a tmpfs of `megabytes`, unmounted afterwards.
    static func withSmallFilesystem(megabytes: Int, _ body: (URL) throws -> Void) throws {
        let dir = Fixtures.temporaryDirectory("full-disk")
        defer { try? FileManager.default.removeItem(at: dir) }
        let mount = try Posix.runShellCommand("mount -t tmpfs -o size=\(megabytes)m autotrack-test '\(dir.path)'", input: [], timeout: .seconds(30))
        try #require(mount == .exited(0), "mounting a tmpfs needs root (CI and the test command run as root)")
        defer { _ = try? Posix.runShellCommand("umount '\(dir.path)'", input: [], timeout: .seconds(30)) }
        try body(dir)
    }

    static func batch(_ b: Int, events: Int = 200) -> EventBatch {
        EventBatch(
            appKey: "shop",
            events: (0..<events).map { i in
                event("d-\(b)-\(i)", extra: [("props", .object(JSONObject([("note", .string(String(repeating: "x", count: 300)))])))])
            })
    }

    @Test(.timeLimit(.minutes(3))) func aFullDiskStopsAcknowledgingBeforeTheStoreCannotKeepWhatItAcknowledged() throws {
        try Self.withSmallFilesystem(megabytes: 48) { dir in
            let path = dir.appendingPathComponent("events.sqlite").path
            let store = try SQLiteEventStore(path: path)
            defer { store.close() }
            store.pauseIngestStoring(true)
            // Another program's file takes most of the disk.
            let filler = dir.appendingPathComponent("filler")
            try Data(count: 20 << 20).write(to: filler)

            var acknowledged = 0
            var refusal: StoreError?
            for b in 0..<2_000 {  // bounded: the disk holds far fewer
                do throws(StoreError) {
                    acknowledged += try store.append(Self.batch(b)).stored
                } catch {
                    refusal = error
                    break
                }
            }
            let refused = try #require(refusal, "every append was acknowledged on a 48 MiB disk")
            #expect(refused.code == .unavailable)
            #expect(refused.message.contains("less than the") && refused.message.contains("needed to store the"), "\(refused.message)")
            #expect(acknowledged > 0)

            // Every acknowledged event can be stored and counted.
            #expect(try store.totals(.all).events == acknowledged)
            #expect(store.batchesWaitingInLog == 0)

            // Space freed: taken again.
            try FileManager.default.removeItem(at: filler)
            #expect(try store.append(Self.batch(9_999)).stored == 200)
            #expect(try store.totals(.all).events == acknowledged + 200)
        }
    }
}
