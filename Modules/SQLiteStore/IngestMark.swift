import SystemCalls

/// The acknowledged mark: the last log position whose batch was acknowledged, and when, kept in
/// the log's lock file (`PATH-ingest-lock`), outside the log it speaks of. A log that ends short
/// of it (its `-wal` deleted, cut short or written over while no collector ran) is told from
/// one that holds every acknowledged batch: `SQLiteEventStore.ownIngestLog` refuses to start
/// over it silently.
///
/// Written (`pwrite`, no sync) once a batch is durable and before its `ACK` goes, so it is never
/// ahead of what the log made durable; a process crash keeps it (the kernel has it). The storing
/// thread syncs it at most once a round (`StoreTuning.storePeriod`), so after a power loss it may be
/// up to a round behind the log: a loss of the log's tail in the same power loss as the mark's
/// last round goes unseen, and nothing else does.
///
/// The file holds one line of text (padded with spaces to `size` bytes, so every write covers
/// the last): `autotrack-ingest-mark 1 LOGID POSITION MS`. `LOGID` is the database's
/// `ingest_applied.log_id`, so a mark left by another database is never taken for this one's.
struct IngestMark: Equatable {
    let logID: String
    let position: Int64
    /// When the batch at `position` was acknowledged (ms since the epoch).
    let at: Int64

    static let size = 128
    private static let word = "autotrack-ingest-mark"
    private static let version = "1"

    var encoded: [UInt8] {
        var line = Array("\(Self.word) \(Self.version) \(logID) \(position) \(at)".utf8)
        line.append(contentsOf: repeatElement(UInt8(ascii: " "), count: max(0, Self.size - 1 - line.count)))
        line.append(UInt8(ascii: "\n"))
        return line
    }

    /// The mark `bytes` hold; nil for an empty file or anything else (a mark that cannot be read
    /// says nothing: the log is then checked by its positions alone).
    init?(_ bytes: [UInt8]) {
        let fields = String(decoding: bytes, as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count == 5, fields[0] == Self.word, fields[1] == Self.version, let position = Int64(fields[3]), let at = Int64(fields[4]),
            position >= 0
        else { return nil }
        self.init(logID: String(fields[2]), position: position, at: at)
    }

    init(logID: String, position: Int64, at: Int64) {
        self.logID = logID
        self.position = position
        self.at = at
    }

    /// The mark in the lock file `fd` (at `path`); nil when it holds none.
    static func read(_ fd: Int32, path: String) -> IngestMark? {
        guard let bytes = try? Posix.read(fd, count: size, at: 0, path: path) else { return nil }
        return IngestMark(bytes)
    }

    func write(_ fd: Int32, path: String) throws(PosixError) {
        try Posix.write(fd, encoded, at: 0, path: path)
    }
}
