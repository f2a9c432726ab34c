import EventModel
import EventStore
import Foundation
import Synchronization
import SystemCalls
import Testing
import TestSupport

@testable import SQLiteStore

/// The durable commit path: COMMIT without a sync under the write lock, then one `fdatasync` of
/// the log shared by the groups committed before it (`SharedLogSync`), the `ACK` after it.
@Suite(.timeLimit(.minutes(3))) struct SharedLogSyncTests {
    /// What the fake syncs saw: the groups committed when each started, appended when it ended.
    final class SyncLog: Sendable {
        let finished = Mutex<[UInt64]>([])
        let started = Atomic<Int>(0)
    }

    @Test func nobodyReturnsBeforeASyncThatStartedAfterItsCommitAndSyncsAreShared() {
        let log = SyncLog()
        let counter = Mutex<SharedLogSync?>(nil)
        let sync = SharedLogSync {
            log.started.add(1, ordering: .relaxed)
            // Every group numbered by now committed before this sync started.
            let covered = counter.withLock { $0!.groups }
            Thread.sleep(forTimeInterval: 0.005)  // a slow disk: groups commit meanwhile
            log.finished.withLock { $0.append(covered) }
        }
        counter.withLock { $0 = sync }
        let writeLock = Mutex(())
        let violations = Mutex<[String]>([])
        let threads = 8, rounds = 25
        let done = onThreads(threads) { t in
            for r in 0..<rounds {
                let group = writeLock.withLock { _ in sync.committed() }  // a COMMIT, numbered under the lock
                do throws(StoreError) {
                    try sync.waitUntilDurable(through: group)
                } catch {
                    violations.withLock { $0.append("thread \(t) round \(r): \(error)") }
                }
                let covering = log.finished.withLock { $0.filter { $0 >= group }.count }
                if covering == 0 { violations.withLock { $0.append("group \(group) returned before a sync that covers it") } }
            }
        }
        #expect(done)
        #expect(violations.withLock { $0 } == [])
        #expect(sync.groups == UInt64(threads * rounds))
        let syncs = log.started.load(ordering: .relaxed)
        #expect(syncs >= 1)
        #expect(syncs < threads * rounds / 2, "\(syncs) syncs for \(threads * rounds) groups: not shared")
    }

    @Test func aFailedSyncFailsTheGroupsItCoveredAndEveryLaterOne() {
        let calls = Atomic<Int>(0)
        let sync = SharedLogSync { () throws(StoreError) in
            if calls.add(1, ordering: .relaxed).newValue == 2 { throw StoreError(.unavailable, "fdatasync: EIO") }
        }
        let first = sync.committed()
        #expect(throws: Never.self) { try sync.waitUntilDurable(through: first) }
        #expect(throws: Never.self) { try sync.waitUntilDurable(through: first) }  // covered: no new sync
        #expect(calls.load(ordering: .relaxed) == 1)
        let second = sync.committed()
        #expect(throws: StoreError(.unavailable, "fdatasync: EIO")) { try sync.waitUntilDurable(through: second) }
        let third = sync.committed()
        #expect(throws: StoreError(.unavailable, "fdatasync: EIO")) { try sync.waitUntilDurable(through: third) }
        #expect(calls.load(ordering: .relaxed) == 2, "no sync after a failed one")
    }

    @Test func aFailedFdatasyncOfTheLogFailsTheAppendAndTheStoreTakesNoMore() throws {
        let path = temporaryDatabase("logsync-fail")
        let log = path + "-ingest"
        defer { FaultInjection.clearSyncs(path: log) }
        do {
            let store = try SQLiteEventStore(path: path)
            defer { store.close() }
            #expect(try store.append(EventBatch(appKey: "shop", events: [event("a")])).stored == 1)
            let syncsBefore = FaultInjection.syncCalls(path: log)
            FaultInjection.injectSyncFaults(path: log, [.error(EIO)])
            let failure = #expect(throws: StoreError.self) {
                try store.append(EventBatch(appKey: "shop", events: [event("b"), event("c")]))
            }
            #expect(failure?.code == .unavailable)
            #expect(failure?.message.contains(log) == true)
            // The kernel may have dropped the log's pages: no later append is called durable.
            #expect(throws: StoreError.self) { try store.append(EventBatch(appKey: "shop", events: [event("d")])) }
            #expect(FaultInjection.syncCalls(path: log) == syncsBefore + 1, "the failed sync was the last")
        }
        // Reopened, the client's resend of the unacknowledged batches stores each event once.
        let store = try SQLiteEventStore(path: path)
        defer { store.close() }
        let resent = try store.append(EventBatch(appKey: "shop", events: [event("b"), event("c"), event("d")]))
        #expect(resent.stored + resent.duplicates == 3)
        #expect(try store.totals(.all).events == 4)
    }

    @Test func concurrentAppendsShareTheLogsSyncs() throws {
        let path = temporaryDatabase("logsync-share")
        let log = path + "-ingest"
        defer { FaultInjection.clearSyncs(path: log) }
        FaultInjection.injectSyncFaults(path: log, always: .delay(.milliseconds(20)))  // a slow disk
        let store = try SQLiteEventStore(path: path)
        defer { store.close() }
        let syncsAtOpen = FaultInjection.syncCalls(path: log)  // the new log's header
        let threads = 8, batches = 12, perBatch = 20
        let errors = Mutex<[String]>([])
        let done = onThreads(threads) { t in
            for b in 0..<batches {
                let events = (0..<perBatch).map { event("t\(t)-b\(b)-e\($0)") }
                do {
                    let outcome = try store.append(EventBatch(appKey: "shop", events: events))
                    if outcome.stored != perBatch { errors.withLock { $0.append("t\(t) b\(b): \(outcome)") } }
                } catch {
                    errors.withLock { $0.append("t\(t) b\(b): \(error)") }
                }
            }
        }
        #expect(done)
        #expect(errors.withLock { $0 } == [])
        #expect(try store.totals(.all).events == threads * batches * perBatch)
        let groups = try #require(store.logSync).groups
        let syncs = FaultInjection.syncCalls(path: log) - syncsAtOpen
        #expect(syncs >= 1)
        // A sync serves every batch of a group, and every group written while the one before ran.
        #expect(UInt64(syncs) <= groups, "\(syncs) syncs for \(groups) groups")
        #expect(syncs * 2 <= threads * batches, "\(syncs) syncs for \(threads * batches) appends")
    }

    @Test func normalDurabilitySyncsNoAppend() throws {
        let path = temporaryDatabase("logsync-normal")
        let log = path + "-ingest"
        defer { FaultInjection.clearSyncs(path: log) }
        let store = try SQLiteEventStore(path: path, options: StoreOptions(durability: .normal))
        defer { store.close() }
        let syncsAtOpen = FaultInjection.syncCalls(path: log)  // the new log's header
        for i in 0..<5 { #expect(try store.append(EventBatch(appKey: "shop", events: [event("a\(i)")])).stored == 1) }
        #expect(store.logSync == nil)
        #expect(FaultInjection.syncCalls(path: log) == syncsAtOpen)
    }

    // MARK: a collector killed after its ACK

    static let childVariable = "AUTOTRACK_LOGSYNC_CHILD"
    static let marker = "LOGSYNC-CHILD-ACKED"

    /// The child: appends batches to the database named in the environment, prints the marker
    /// once every append returned (what the collector's `ACK` follows), then waits to be killed.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] != nil, "runs only as the child process"))
    func appendingChild() throws {
        let path = ProcessInfo.processInfo.environment[Self.childVariable]!
        let store = try SQLiteEventStore(path: path)
        for b in 0..<10 {
            _ = try store.append(EventBatch(appKey: "shop", events: (0..<50).map { event("child-\(b)-\($0)") }))
        }
        FileHandle.standardOutput.write(Data((Self.marker + "\n").utf8))  // unbuffered
        Thread.sleep(forTimeInterval: 60)  // killed long before
    }

    @Test func everyAcknowledgedEventIsThereAfterTheWriterIsKilled() throws {
        let path = temporaryDatabase("logsync-killed")
        let child = try #require(
            try ChildTest.killed("appendingChild", variable: Self.childVariable, value: path, marker: Self.marker), "the child never appended")
        #expect(child.ended == .signalled(SIGKILL))
        #expect(FileManager.default.fileExists(atPath: path + "-wal"), "killed with its log not checkpointed away")

        let store = try SQLiteEventStore(path: path)
        defer { store.close() }
        #expect(try store.totals(.all).events == 500)
    }
}
