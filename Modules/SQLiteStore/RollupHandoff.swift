import EventModel
import EventStore
import Synchronization

/// One batch's rows as the `ingest-store` thread stored them: every valid event of `batch`, in
/// order, at the seqs `first` … `last` (a batch some of whose events were left out as repeats is
/// not handed off: which seq each stored event got is then not known without reading them).
struct StoredRun: Sendable {
    let batch: PendingBatch
    let first: Int64
    let count: Int
    var last: Int64 { first + Int64(count) - 1 }
}

/// The rows the `ingest-store` thread stored, handed to one rollup worker in memory, so that it
/// applies them without reading them back from `events` (SQLiteEventStore+Rollups.swift).
///
/// Storing offers each drain's runs after its COMMIT, in seq order; a run whose batch does not
/// fit (`maxBytes`, `SQLiteMemoryBounds.handoffBytes`) is dropped, never waited for. The worker takes only what
/// follows its file's watermark exactly (`take`): whatever is not here (dropped, stored before
/// the process started, lost with a crash) it reads back from `events`, the truth, so the
/// hand-off changes what the rollups cost, never what they hold. A prune (the one writer that
/// deletes events: SQLite may then give a new event a seq a queued run holds) empties it.
final class RollupHandoff: Sendable {
    private struct Queue {
        var runs: [StoredRun] = []
        /// Runs before it were taken (the array is compacted when half is taken).
        var head = 0
        /// Bytes of the batches of `runs[head...]` (`PendingBatch.heldBytes`).
        var bytes = 0
    }
    private let queue = Mutex(Queue())
    /// The bytes of batches it holds, at most.
    let maxBytes: Int
    /// Events taken so far: what the worker applied from memory, not read back (`ingest-bench`
    /// prints it).
    let takenEvents = Atomic<Int>(0)

    init(maxBytes: Int) {
        self.maxBytes = maxBytes
    }

    /// A part of a run taken: its valid events `range` (indexes in the batch), at seqs from `firstSeq`.
    struct Taken {
        let run: StoredRun
        let range: Range<Int>
        var firstSeq: Int64 { run.first + Int64(range.lowerBound) }
    }

    /// Queues `runs` (in seq order, after every run queued before); each whose batch would pass
    /// the bound is dropped.
    func offer(_ runs: [StoredRun]) {
        guard !runs.isEmpty, maxBytes > 0 else { return }
        queue.withLock { q in
            for r in runs where q.bytes + r.batch.heldBytes <= maxBytes {
                q.runs.append(r)
                q.bytes += r.batch.heldBytes
            }
        }
    }

    /// Forgets every run queued.
    func clear() {
        queue.withLock { $0 = Queue() }
    }

    /// Events queued, and the bytes of their batches (for tests).
    var queued: (events: Int, bytes: Int) {
        queue.withLock { q in (q.runs[q.head...].reduce(0) { $0 + $1.count }, q.bytes) }
    }

    /// Drops the runs at or before `watermark`, then takes the events from `watermark + 1` on
    /// while they follow each other, at most `limit`. Also returns the first seq queued after
    /// what it took (nil: none), so a read of `events` for a gap can stop before it.
    func take(after watermark: Int64, limit: Int) -> (taken: [Taken], next: Int64?) {
        queue.withLock { q in
            var taken: [Taken] = []
            var next = watermark + 1
            var room = limit
            while q.head < q.runs.count {
                let r = q.runs[q.head]
                if r.last < next {
                    // Applied already (a read of `events`, a report, a rebuild): gone.
                    q.head += 1
                    q.bytes -= r.batch.heldBytes
                    continue
                }
                guard r.first <= next, room > 0 else { break }
                let from = Int(next - r.first)
                let to = min(r.count, from + room)
                taken.append(Taken(run: r, range: from..<to))
                room -= to - from
                next = r.first + Int64(to)
                if to == r.count {
                    q.head += 1
                    q.bytes -= r.batch.heldBytes
                }
            }
            if q.head > 0, q.head * 2 >= q.runs.count {
                q.runs.removeFirst(q.head)
                q.head = 0
            }
            takenEvents.add(limit - room, ordering: .relaxed)
            return (taken, q.head < q.runs.count ? max(q.runs[q.head].first, next) : nil)
        }
    }
}

extension RollupEvent {
    /// The events of `taken` (rows stored at its seqs), as `read` reads those rows of `events`
    /// for `part` (`columns`): the same texts, numbered in `texts` in the same order, and for the
    /// `pages` file the title SQLite gives (`titleSQL`, run by `db` on the props) and the page
    /// and duration; the `kinds` file's columns leave those out.
    static func events(of taken: RollupHandoff.Taken, _ part: RollupPart, db: SQLiteDatabase, texts: inout RollupTexts, into rows: inout [RollupEvent])
        throws(SQLiteError)
    {
        let batch = taken.run.batch
        let pages = part == .pages
        var failure: SQLiteError?
        batch.batch.eventList.withRecords { received, bytes in
            var index = 0
            var seq = taken.firstSeq
            for event in received {
                guard case .valid(let e) = event else { continue }
                defer { index += 1 }
                guard taken.range.contains(index) else { continue }
                let time = batch.batch.correctedTime(ts: e.ts, receivedAt: batch.receivedAt)
                let appKey = texts.text(batch.appKey), appVersion = batch.appVersion.map { texts.text($0) }
                let type = texts.text(e.type.rawValue), name = texts.text(utf8: bytes[e.name])!
                let page = pages ? texts.text(utf8: bytes[e.page]) : nil, path = texts.text(utf8: bytes[e.path])
                var title: RollupText?
                if pages {
                    do throws(SQLiteError) {
                        title = try Self.title(bytes.bytes(e.props), db: db, texts: &texts)
                    } catch {
                        failure = error
                        return
                    }
                }
                let session = texts.text(utf8: bytes[e.session]), user = texts.text(utf8: bytes[e.user]), device = texts.text(utf8: bytes[e.device])
                rows.append(
                    RollupEvent(
                        seq: seq, appKey: appKey, appVersion: appVersion, time: time, type: type, name: name, page: page, path: path,
                        title: title, session: session, user: user, device: device, duration: pages ? e.duration : nil))
                seq += 1
            }
        }
        if let failure { throw failure }
    }

    /// What `SQLiteEventStore.titleSQL` gives for the JSON text `props`. Only a props text that
    /// spells `title`, or has an escape (a key may spell it escaped), can hold that key. A text
    /// without escapes is read here (`TitleScan`); SQLite's own JSON functions (the definition
    /// `read` runs) answer for one with escapes, and for any text the scan does not take for a
    /// JSON object.
    static func title(_ props: UnsafeBufferPointer<UInt8>, db: SQLiteDatabase, texts: inout RollupTexts) throws(SQLiteError) -> RollupText? {
        guard mayHoldTitle(props) else { return nil }
        if !props.contains(UInt8(ascii: "\\")), let found = TitleScan.title(props) {
            guard let range = found else { return nil }
            return texts.text(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(props)[range]))
        }
        return try db.first(titleOfProps, text: props) { r in r.flatMap { texts.text($0.bytes(0)) } }
    }

    /// Whether `props` holds the bytes `title` or a backslash.
    static func mayHoldTitle(_ props: UnsafeBufferPointer<UInt8>) -> Bool {
        let title = Array("title".utf8)
        var i = 0
        let n = props.count
        while i < n {
            let b = props[i]
            if b == UInt8(ascii: "\\") { return true }
            if b == title[0], i + title.count <= n, props[i + 1] == title[1], props[i + 2] == title[2], props[i + 3] == title[3],
                props[i + 4] == title[4]
            {
                return true
            }
            i += 1
        }
        return false
    }

    /// `titleSQL` of the props text bound to `?1`.
    static let titleOfProps = HotStatement("SELECT \(SQLiteEventStore.titleSQL(props: "?1")) AS title")
}

/// `props.title` of a JSON object text without escapes, as SQLite's `json_type` and
/// `json_extract` of `$.title` read it: the first member named `title` at the top level, its
/// value when that is a string. Without escapes a string ends at its next quote, so the members
/// are skipped by their brackets and quotes without decoding anything.
enum TitleScan {
    /// `.some(range)`: the title's bytes (between its quotes); `.some(nil)`: no string title;
    /// nil: not read (not an object as this scan knows one: let SQLite answer).
    static func title(_ text: UnsafeBufferPointer<UInt8>) -> Range<Int>?? {
        var i = 0
        let n = text.count
        func skipSpace() {
            while i < n, text[i] == 0x20 || text[i] == 0x0A || text[i] == 0x0D || text[i] == 0x09 { i += 1 }
        }
        /// The string opening at `i` (a quote): its contents' range, `i` past its closing quote.
        func string() -> Range<Int>? {
            guard i < n, text[i] == UInt8(ascii: "\"") else { return nil }
            let start = i + 1
            var j = start
            while j < n, text[j] != UInt8(ascii: "\"") { j += 1 }
            guard j < n else { return nil }
            i = j + 1
            return start..<j
        }
        /// Skips the value at `i`; false when it is not one this scan knows.
        func skipValue() -> Bool {
            guard i < n else { return false }
            switch text[i] {
            case UInt8(ascii: "\""): return string() != nil
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                // Bounded by the text's length: each step moves `i` on.
                while i < n {
                    switch text[i] {
                    case UInt8(ascii: "\""):
                        guard string() != nil else { return false }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"):
                        depth -= 1
                        if depth == 0 {
                            i += 1
                            return true
                        }
                    default: break
                    }
                    i += 1
                }
                return false
            default:
                // A number, true, false or null: up to the next separator.
                let start = i
                while i < n, text[i] != UInt8(ascii: ","), text[i] != UInt8(ascii: "}"), text[i] != UInt8(ascii: "]"),
                    text[i] != 0x20, text[i] != 0x0A, text[i] != 0x0D, text[i] != 0x09
                { i += 1 }
                return i > start
            }
        }
        skipSpace()
        guard i < n, text[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        skipSpace()
        if i < n, text[i] == UInt8(ascii: "}") { return .some(nil) }
        // Bounded by the text's length: each member moves `i` on.
        while i < n {
            skipSpace()
            guard let key = string() else { return nil }
            skipSpace()
            guard i < n, text[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            skipSpace()
            let isTitle = key.count == 5 && text[key.lowerBound] == UInt8(ascii: "t") && text[key.lowerBound + 1] == UInt8(ascii: "i")
                && text[key.lowerBound + 2] == UInt8(ascii: "t") && text[key.lowerBound + 3] == UInt8(ascii: "l")
                && text[key.lowerBound + 4] == UInt8(ascii: "e")
            if isTitle {
                // The first member of that name decides, as SQLite's lookup does.
                guard i < n else { return nil }
                if text[i] == UInt8(ascii: "\"") { return string().map { .some($0) } }
                return skipValue() ? .some(nil) : nil
            }
            guard skipValue() else { return nil }
            skipSpace()
            guard i < n else { return nil }
            if text[i] == UInt8(ascii: "}") { return .some(nil) }
            guard text[i] == UInt8(ascii: ",") else { return nil }
            i += 1
        }
        return nil
    }
}

extension RollupTexts {
    /// The text of `string` (`text(_:)` of its UTF-8).
    mutating func text(_ string: String) -> RollupText {
        var s = string
        return s.withUTF8 { text(UnsafeRawBufferPointer($0)) }!
    }

    /// The text of `utf8`, nil for none.
    mutating func text(utf8 bytes: UnsafeBufferPointer<UInt8>?) -> RollupText? {
        bytes.flatMap { text(UnsafeRawBufferPointer($0)) }
    }
}
