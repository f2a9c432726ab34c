import EventStore
import Foundation
import SystemCalls

/// What a new owner finds in the ingest log at open, checked against `ingest_applied` (what
/// `events` holds) and the acknowledged mark (`IngestMark`): every position after the first
/// must be in the log, readable, up to the mark. A log that fails that (deleted, cut short or
/// written over, a record of another build) or that cannot be read at all is a
/// `Problem`: the store refuses to open over it while acknowledged batches would be lost
/// (`losesAcknowledged`), unless `StoreOptions.acceptIngestLoss`; otherwise, or then, the log's
/// file is kept aside (`PATH-ingest.damaged-STAMP`) and a new
/// log holds the batches the old one still had.
struct IngestRecovery {
    /// The log, open; nil when it cannot be read (or once set aside).
    var log: IngestLog?
    /// The readable records past `ingest_applied`, in order.
    var records: [IngestLog.Record]
    /// What is wrong, if anything.
    let problem: Problem?
    /// Where the damaged files were kept (`setAside`).
    private(set) var keptAs: String?

    /// Whether opening over the log would lose acknowledged batches (or cannot tell).
    var losesAcknowledged: Bool { problem?.losesAcknowledged ?? false }

    struct Problem {
        let logPath: String
        /// Why the log could not be read at all.
        let damage: String?
        /// The mark of this database's log, when the lock file holds one.
        let mark: IngestMark?
        let applied: Int64
        /// Positions acknowledged (up to the mark) that the log does not hold readably.
        let missing: [ClosedRange<Int64>]
        /// How many of `missing` are records that cannot be read, and why the first cannot.
        let unreadable: Int
        let why: String?
        /// Readable records the log still holds.
        let held: Int

        var missingCount: Int64 { missing.reduce(0) { $0 + Int64($1.count) } }
        var losesAcknowledged: Bool { !missing.isEmpty || (damage != nil && mark == nil) }

        var positions: String {
            let shown = missing.prefix(5).map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)–\($0.upperBound)" }
            return shown.joined(separator: ", ") + (missing.count > 5 ? ", …" : "")
        }

        private var when: String {
            guard let mark else { return "" }
            let date = Date(timeIntervalSince1970: Double(mark.at) / 1000)
            return "; the last acknowledged at \(IngestRecovery.stamp(date, readable: true))"
        }

        /// What is wrong, in a sentence that names the file.
        var what: String {
            if let damage {
                guard let mark else {
                    return "the ingest log \(logPath) cannot be read (\(damage)), and no acknowledged mark says whether it held batches not yet stored in the database"
                }
                guard !missing.isEmpty else {
                    return "the ingest log \(logPath) cannot be read (\(damage)); every batch it acknowledged (up to position \(mark.position)) is stored in the database already"
                }
                return "the ingest log \(logPath) cannot be read (\(damage)): the \(missingCount) acknowledged batch\(missingCount == 1 ? "" : "es") it held past what the database stores (positions \(positions)\(when)) cannot be recovered"
            }
            var text =
                "the ingest log \(logPath) ends short of what this collector acknowledged: \(missingCount) acknowledged batch\(missingCount == 1 ? " is" : "es are") missing from it (positions \(positions)\(when))"
            if unreadable > 0 { text += ", \(unreadable) of them present but unreadable (\(why ?? "damaged"))" }
            text += "; the database stores every batch up to position \(applied), and the log still holds \(held) batch\(held == 1 ? "" : "es") after it"
            return text
        }

        /// The error a store opening without `acceptIngestLoss` throws: what, and how to go on.
        func refusal(database: String) -> StoreError {
            StoreError(
                .damaged,
                "\(what). It was deleted, cut short or written over, or the disk is damaged; the events of the missing batches were acknowledged to their agents, which no longer hold them, so unless a copy of \(logPath) holds them they are lost. The log's records were left as found. To store what the log still holds and start again, run 'autotrack-collector serve --db \(database) --accept-ingest-loss' (the damaged files are kept beside the database as \(logPath).damaged-TIME)."
            )
        }

        /// What a store that opened over the problem says it did.
        func notice(database: String, keptAs: String?, stored: Int) -> String {
            var text = "\(what). "
            if let keptAs { text += "It was kept as \(keptAs); " }
            text +=
                stored == 0
                ? "a new ingest log is made, with no batch left to store"
                : "a new ingest log holds the \(stored) batch\(stored == 1 ? "" : "es") still readable, stored in the database next"
            if losesAcknowledged {
                text += "; the missing batches' events are not in the database"
            }
            return text + "."
        }
    }

    /// Reads the log of `database` (whose lock `lock` holds) past `applied` and checks it.
    static func read(database: String, logID: String, applied: Int64, lock: IngestLock) throws(StoreError) -> IngestRecovery {
        let logPath = database + IngestLog.suffix
        var log: IngestLog?
        var damage: String?
        // A log that is not there is not made before the check: a refused open changes nothing.
        if try Self.exists(logPath) {
            let opened = try openLog(database: database, logID: logID, lock: lock)
            log = opened.log
            damage = opened.damage
        }
        var records: [IngestLog.Record] = []
        var unreadable: [Int64] = []
        var why: String?
        if let open = log { (records, unreadable, why) = try open.records(after: applied) }
        let mark = lock.acknowledged.flatMap { $0.logID == logID ? $0 : nil }
        let end = max(applied, mark?.position ?? 0, records.last?.position ?? 0, unreadable.last ?? 0)
        let missing = Self.gaps(after: applied, through: end, present: records.map(\.position))
        let problem =
            damage == nil && missing.isEmpty
            ? nil
            : Problem(
                logPath: logPath, damage: damage, mark: mark, applied: applied, missing: missing, unreadable: unreadable.count, why: why,
                held: records.count)
        if problem == nil, log == nil { log = try openLog(database: database, logID: logID, lock: lock).log }
        return IngestRecovery(log: log, records: records, problem: problem)
    }

    private static func exists(_ logPath: String) throws(StoreError) -> Bool {
        do throws(PosixError) {
            return try Posix.fileIdentity(path: logPath) != nil
        } catch {
            throw StoreError(.unavailable, "cannot read the ingest log \(logPath): \(error)")
        }
    }

    /// The log opened, or why it is damaged.
    private static func openLog(database: String, logID: String, lock: IngestLock) throws(StoreError) -> (log: IngestLog?, damage: String?) {
        do throws(IngestLog.OpenFailure) {
            return (try IngestLog.open(database: database, logID: logID, lock: lock), nil)
        } catch {
            switch error {
            case .damaged(let why): return (nil, why)
            case .other(let e): throw e
            }
        }
    }

    private init(log: IngestLog?, records: [IngestLog.Record], problem: Problem?) {
        self.log = log
        self.records = records
        self.problem = problem
    }

    /// The positions after `applied` through `end` that are not in `present` (ascending), as ranges.
    static func gaps(after applied: Int64, through end: Int64, present: [Int64]) -> [ClosedRange<Int64>] {
        var gaps: [ClosedRange<Int64>] = []
        var next = applied + 1
        for p in present where p >= next {
            if p > next { gaps.append(next...(p - 1)) }
            next = p + 1
        }
        if next <= end { gaps.append(next...end) }
        return gaps
    }

    /// Keeps the log's files aside, makes a new log holding the readable records (renumbered
    /// after `applied`, so no gap remains), durable before it returns, and moves the mark to its
    /// last: what was missing is accounted for once, here.
    mutating func setAside(database: String, logID: String, applied: Int64, lock: IngestLock) throws(StoreError) -> IngestLog {
        log?.close()
        log = nil  // its file closed before it moves
        let base = database + IngestLog.suffix
        let kept = base + ".damaged-" + Self.stamp(Date(), readable: false)
        do throws(PosixError) {
            if try Posix.fileIdentity(path: base) != nil {
                try Posix.rename(base, kept)
                keptAs = kept
            }
            try Posix.syncDirectory((database as NSString).deletingLastPathComponent.isEmpty ? "." : (database as NSString).deletingLastPathComponent)
        } catch {
            throw StoreError(.unavailable, "could not keep the damaged ingest log \(base) aside as \(kept) (\(error)); the folder must be writable")
        }
        let fresh: IngestLog
        do throws(IngestLog.OpenFailure) {
            fresh = try IngestLog.open(database: database, logID: logID, lock: lock)
        } catch {
            switch error {
            case .damaged(let why): throw StoreError(.damaged, "the new ingest log \(base) cannot be read: \(why)")
            case .other(let e): throw e
            }
        }
        records = records.enumerated().map { i, r in (applied + 1 + Int64(i), r.batch, r.receivedAt, r.stored, r.duplicates) }
        try fresh.append(
            records.map { r in
                (r.position, LoggedBatch.encode(r.batch, receivedAt: r.receivedAt), BatchOutcome(stored: r.stored, duplicates: r.duplicates))
            }, deletingThrough: 0)
        try fresh.file.sync()
        try lock.reset(to: IngestMark(logID: logID, position: applied + Int64(records.count), at: Posix.wallClockMillis()))
        return fresh
    }

    /// A UTC time as `20261201T224001Z` (file names) or `2026-12-01 22:40:01 UTC`.
    static func stamp(_ date: Date, readable: Bool) -> String {
        let c = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date)
        func two(_ n: Int?) -> String { n.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        let y = c.year.map(String.init) ?? "0000"
        return readable
            ? "\(y)-\(two(c.month))-\(two(c.day)) \(two(c.hour)):\(two(c.minute)):\(two(c.second)) UTC"
            : "\(y)\(two(c.month))\(two(c.day))T\(two(c.hour))\(two(c.minute))\(two(c.second))Z"
    }
}
