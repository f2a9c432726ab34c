import EventStore
import Foundation
import Synchronization
import Testing

/// `GroupCommit`, the queueing both stores' appends share: who commits which group, and who
/// gets which result.
@Suite(.timeLimit(.minutes(3))) struct GroupCommitTests {
    struct Refused: Error, Equatable {
        let batch: Int
    }

    @Test func batchesThatArriveDuringACommitAreCommittedTogetherByTheFirstOfThem() {
        let commits = GroupCommit<Int, Int, Refused>(maxCommits: 1)
        // Each commit: the group and whose caller ran it.
        let groups = Mutex<[(leader: Int, batches: [Int])]>([])
        let firstStarted = DispatchSemaphore(value: 0)
        let results = Mutex<[Int: Result<Int, Refused>]>([:])
        @Sendable func submit(_ batch: Int) {
            let r = commits.submit(batch) { group in
                groups.withLock { $0.append((batch, group)) }
                if group == [0] {
                    firstStarted.signal()
                    // Held until the three others wait behind it (bounded: 10 s).
                    for _ in 0..<1000 where commits.waiting < 3 { Thread.sleep(forTimeInterval: 0.01) }
                }
                return group.map { $0 == 2 ? .failure(Refused(batch: $0)) : .success($0 * 10) }
            }
            results.withLock { $0[batch] = r }
        }
        let done = onThreads(4) { i in
            if i == 0 {
                submit(0)
            } else {
                firstStarted.wait()
                firstStarted.signal()
                submit(i)
            }
        }
        #expect(done)
        let all = groups.withLock { $0 }
        #expect(all.count == 2)
        #expect(all.first?.batches == [0] && all.first?.leader == 0)
        // The three that waited: one commit, run by the caller whose batch came first.
        #expect(all.last.map { Set($0.batches) } == [1, 2, 3])
        #expect(all.last.map { $0.leader == $0.batches.first } == true)
        let r = results.withLock { $0 }
        #expect(r[0] == .success(0) && r[1] == .success(10) && r[3] == .success(30))
        #expect(r[2] == .failure(Refused(batch: 2)))
    }

    @Test func everyCallerGetsItsOwnResultAndAtMostMaxCommitsRunAtOnce() {
        let commits = GroupCommit<Int, Int, Refused>(maxCommits: 2)
        let running = Atomic<Int>(0), most = Atomic<Int>(0)
        let committed = Mutex<[Int]>([])
        let wrong = Mutex<[Int]>([])
        let threads = 8, each = 20
        let done = onThreads(threads) { t in
            for k in 0..<each {
                let batch = t * each + k
                let r = commits.submit(batch) { group in
                    let now = running.add(1, ordering: .sequentiallyConsistent).newValue
                    _ = most.max(now, ordering: .sequentiallyConsistent)
                    Thread.sleep(forTimeInterval: 0.001)
                    committed.withLock { $0 += group }
                    running.subtract(1, ordering: .sequentiallyConsistent)
                    return group.map { .success($0 + 1) }
                }
                if r != .success(batch + 1) { wrong.withLock { $0.append(batch) } }
            }
        }
        #expect(done)
        #expect(wrong.withLock { $0 } == [])
        #expect(committed.withLock { $0.sorted() } == Array(0..<(threads * each)))
        #expect(most.load(ordering: .sequentiallyConsistent) <= 2)
        #expect(commits.waiting == 0)
    }
}

/// Runs `body(i)` on `count` threads of their own; true when all finished within 90 s.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) -> Bool {
    let group = DispatchGroup()
    for i in 0..<count {
        group.enter()
        Thread {
            defer { group.leave() }
            body(i)
        }.start()
    }
    return group.wait(timeout: .now() + 90) == .success
}
