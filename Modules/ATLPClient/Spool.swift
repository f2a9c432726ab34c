import SystemCalls

/// The disk spool: events are appended to `open.log` as they come (one JSON object per
/// line), so they survive a crash of the process as soon as `append` returns; a batch is
/// cut by renaming that file `batch-<sequence>.log`, and fsynced before it is first sent,
/// so it also survives a power loss. (Should a power loss undo the rename, the synced
/// `open.log` is recovered as a batch.) An `ACK` deletes the batch file. Total size is
/// bounded by `maxBytes`.
///
/// Not thread-safe (so not Sendable): the shipper keeps it inside its mutex.
final class Spool {
    let directory: String
    let maxBytes: Int
    /// Sealed batches, oldest first.
    private(set) var sealed: [SpooledBatch] = [] {
        didSet { sealedEvents = sealed.reduce(0) { $0 + $1.events } }  // per batch, so `pendingEvents` is O(1)
    }
    private(set) var sealedEvents = 0
    private(set) var openEvents = 0
    private(set) var openBytes = 0
    private(set) var totalBytes = 0
    /// When the first event of the open segment was appended.
    private(set) var openSince: ContinuousClock.Instant?
    /// The open segment's descriptor (-1 while none is open); tests inject faults on it.
    private(set) var openFD: Int32 = -1
    /// Holds the folder's `lock` file: one shipper per spool at a time.
    private var lockFD: Int32 = -1
    private var nextSequence: UInt64
    /// Files named as batches whose number cannot be used (`batch-99999999999999999999.log`): each
    /// a sentence naming the file and why. They stay in the folder, unsent, until someone acts.
    let unusableFiles: [String]

    var openPath: String { directory + "/open.log" }
    var quarantineDirectory: String { directory + "/undeliverable" }

    /// Opens or recovers the spool in `directory` (created if missing). A torn last line of
    /// `open.log` (a crash mid-write) is cut off; what remains is sealed as a batch.
    init(directory: String, maxBytes: Int) throws(SpoolError) {
        let lock = try Self.lock(directory)
        let found: [SpooledBatch]
        do {
            (found, unusableFiles) = try Self.scan(directory)
        } catch {
            Posix.close(lock)
            throw error
        }
        lockFD = lock
        self.directory = directory
        self.maxBytes = maxBytes
        sealed = found
        sealedEvents = found.reduce(0) { $0 + $1.events }  // observers do not run in init
        totalBytes = found.reduce(0) { $0 + $1.bytes }
        // Sequences also move with the clock, so ids are not reused after the spool empties.
        nextSequence = max((found.last?.sequence ?? 0) + 1, UInt64(Posix.wallClockMicros()))
        try recoverOpenSegment()
    }

    /// Creates the folder (with its parents, each new one 0700: events are the user's) and takes
    /// its lock, or says who holds it.
    private static func lock(_ directory: String) throws(SpoolError) -> Int32 {
        let path = directory + "/lock"
        do {
            try Posix.makeDirectories(directory, mode: 0o700)
            let fd = try Posix.open(path, O_RDWR | O_CREAT)
            guard try Posix.tryLock(fd, path: path) else {
                Posix.close(fd)
                throw SpoolError(
                    .io, "the spool \(directory) is in use by another shipper (its lock file is held); "
                        + "give each running sender its own spool folder")
            }
            return fd
        } catch let error as PosixError {
            throw SpoolError(.io, "cannot lock the spool \(directory): \(error)", cause: error)
        } catch {
            throw error as! SpoolError
        }
    }

    /// Closes the files and drops the lock, so another shipper may take the folder.
    func release() {
        if openFD >= 0 { Posix.close(openFD) }
        openFD = -1
        if lockFD >= 0 { Posix.close(lockFD) }
        lockFD = -1
    }

    /// The sealed batches already in `directory`, oldest first, and what is wrong with each file
    /// named as a batch that cannot be sent (left where it is).
    private static func scan(_ directory: String) throws(SpoolError) -> (batches: [SpooledBatch], unusable: [String]) {
        var found: [SpooledBatch] = []
        var unusable: [String] = []
        do {
            try Posix.mkdir(directory)
            for name in try Posix.listDirectory(directory).sorted() {
                let seq: UInt64
                switch SpooledBatch.kind(ofFile: name) {
                case .other: continue
                case .batch(let number): seq = number
                case .unusable(let why):
                    unusable.append(
                        "the spool file \(directory)/\(name) was not sent: \(why); it is kept as it is: rename it "
                            + "batch-N.log (N a smaller number, such as the current time in microseconds) to send it, "
                            + "or move it out of the spool")
                    continue
                }
                let bytes = try Posix.readFile(directory + "/" + name)
                let lines = bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
                found.append(SpooledBatch(sequence: seq, events: lines, bytes: bytes.count))
            }
        } catch {
            throw SpoolError(.io, "cannot read the spool \(directory): \(error)", cause: error)
        }
        return (found.sorted { $0.sequence < $1.sequence }, unusable)
    }

    /// The events the spool folder `directory` holds (its batches and the whole lines of its open
    /// segment), read without taking the folder: for a program that started the one shipping from
    /// it, once that one ended. 0 when there is no such folder.
    static func waitingEvents(in directory: String) throws(SpoolError) -> Int {
        do {
            _ = try Posix.listDirectory(directory)
        } catch {
            if error.errno == ENOENT { return 0 }
            throw SpoolError(.io, "cannot read the spool \(directory): \(error)", cause: error)
        }
        let (batches, _) = try scan(directory)
        let open = (try? Posix.readFile(directory + "/open.log")) ?? []
        return batches.reduce(0) { $0 + $1.events } + open.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
    }

    deinit {
        release()
    }

    var pendingEvents: Int { openEvents + sealedEvents }

    private func recoverOpenSegment() throws(SpoolError) {
        let path = openPath
        let bytes: [UInt8]
        do {
            bytes = try Posix.readFile(path)
        } catch {
            if error.errno == ENOENT { return }
            throw SpoolError(.io, "cannot read \(path): \(error)", cause: error)
        }
        let complete = bytes.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        do {
            let fd = try Posix.open(path, O_WRONLY)
            defer { Posix.close(fd) }
            if complete < bytes.count { try Posix.ftruncate(fd, complete, path: path) }
        } catch {
            throw SpoolError(.io, "cannot repair \(path): \(error)", cause: error)
        }
        openEvents = bytes[0..<complete].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        openBytes = complete
        totalBytes += complete
        if openEvents > 0 {
            _ = try seal()
        } else {
            try? Posix.unlink(path)
            totalBytes -= openBytes
            openBytes = 0
        }
    }

    /// Appends one event (its JSON, no LF inside) to the open segment. A write that fails
    /// part-way (a full disk) is cut back to the last whole line, so the next event never lands
    /// on a torn one; the event is refused (the error says why) and nothing else is lost.
    func append(_ json: [UInt8]) throws(SpoolError) {
        let size = json.count + 1
        guard totalBytes + size <= maxBytes else {
            throw SpoolError(
                .full,
                "the spool \(directory) is full (\(totalBytes) of \(maxBytes) bytes): the collector has not acknowledged "
                    + "events for a while; the event was refused, not stored")
        }
        do {
            if openFD < 0 {
                openFD = try Posix.open(openPath, O_WRONLY | O_CREAT | O_APPEND)
                // A failed cut-back may have left a torn line: the segment ends at a whole line again.
                try Posix.ftruncate(openFD, openBytes, path: openPath)
            }
            try Posix.writeAll(openFD, json + [0x0A], path: openPath)
        } catch {
            cutBackOpenSegment()
            var message = "cannot append to \(openPath): \(error); the event was refused, not stored"
            if error.isNoSpace { message += "; free disk space (the spool keeps every event already taken)" }
            if error.isFileTooLarge {
                message += "; the spool file reached the file-size limit ('ulimit -f'): raise it (the spool keeps every event already taken)"
            }
            throw SpoolError(.io, message, cause: error)
        }
        if openEvents == 0 { openSince = ContinuousClock.now }
        openEvents += 1
        openBytes += size
        totalBytes += size
    }

    /// After a failed append: back to the last whole line (`openBytes`). When even that fails,
    /// the file is closed and cut when next opened.
    private func cutBackOpenSegment() {
        guard openFD >= 0 else { return }
        do {
            try Posix.ftruncate(openFD, openBytes, path: openPath)
        } catch {
            Posix.close(openFD)
            openFD = -1
        }
    }

    /// Cuts the open segment into a batch: close and rename it. The fsync is the sender's,
    /// before the batch's first send (`readForSending`), so producers never wait on the disk.
    func seal() throws(SpoolError) -> SpooledBatch? {
        guard openEvents > 0 else { return nil }
        let batch = SpooledBatch(sequence: nextSequence, events: openEvents, bytes: openBytes)
        let target = directory + "/" + batch.fileName
        do {
            if openFD >= 0 {
                Posix.close(openFD)
                openFD = -1
            }
            try Posix.rename(openPath, target)
        } catch {
            throw SpoolError(.io, "cannot seal a batch in \(directory): \(error)", cause: error)
        }
        nextSequence += 1
        sealed.append(batch)
        openEvents = 0
        openBytes = 0
        openSince = nil
        return batch
    }

    /// Makes a sealed batch durable (fsync) and returns its file: one JSON text per line.
    /// Touches only the batch's own file, which nothing else writes: safe without the lock.
    static func readForSending(_ batch: SpooledBatch, in directory: String) throws(SpoolError) -> [UInt8] {
        let path = directory + "/" + batch.fileName
        do {
            let fd = try Posix.open(path, O_RDONLY)
            defer { Posix.close(fd) }
            try Posix.fsync(fd, path: path)
            return try Posix.readFile(path)
        } catch {
            throw SpoolError(.io, "cannot read \(path): \(error)", cause: error)
        }
    }

    /// The events of a sealed batch, one JSON text each.
    static func events(of batch: SpooledBatch, in directory: String) throws(SpoolError) -> [ArraySlice<UInt8>] {
        let path = directory + "/" + batch.fileName
        do {
            let bytes = try Posix.readFile(path)
            return bytes.split(separator: 0x0A, omittingEmptySubsequences: true)
        } catch {
            throw SpoolError(.io, "cannot read \(path): \(error)", cause: error)
        }
    }

    /// Forgets an acknowledged batch.
    func remove(_ batch: SpooledBatch) throws(SpoolError) {
        guard let i = sealed.firstIndex(of: batch) else { return }
        let path = directory + "/" + batch.fileName
        do {
            try Posix.unlink(path)
        } catch {
            if error.errno != ENOENT { throw SpoolError(.io, "cannot delete \(path): \(error)", cause: error) }
        }
        sealed.remove(at: i)
        totalBytes -= batch.bytes
    }

    /// Drops what was not sent (consent withdrawn): the open segment and every sealed batch after
    /// the first `keep` (the batches in flight, already sent). Returns how many events it dropped.
    func discard(keepingFirst keep: Int) throws(SpoolError) -> Int {
        var dropped = 0
        for batch in sealed.dropFirst(keep) {
            try remove(batch)
            dropped += batch.events
        }
        if openFD >= 0 {
            Posix.close(openFD)
            openFD = -1
        }
        do {
            try Posix.unlink(openPath)
        } catch {
            if error.errno != ENOENT { throw SpoolError(.io, "cannot delete \(openPath): \(error)", cause: error) }
        }
        dropped += openEvents
        totalBytes -= openBytes
        openEvents = 0
        openBytes = 0
        openSince = nil
        return dropped
    }

    /// Replaces a batch by two halves (for a collector whose frames are smaller than it, or
    /// that refuses the batch whole: halving isolates the events it refuses).
    func split(_ batch: SpooledBatch) throws(SpoolError) -> [SpooledBatch] {
        let lines = try Self.events(of: batch, in: directory)
        guard lines.count > 1 else { return [batch] }
        return try replace(batch, with: [lines[0..<(lines.count / 2)], lines[(lines.count / 2)...]])
    }

    /// Moves the events of `batch` at `indexes` to `undeliverable/` (a new file, with the reason
    /// beside it) and keeps the others as a batch; returns the file the events went to.
    func setAside(_ indexes: [Int], of batch: SpooledBatch, reason: String) throws(SpoolError) -> String {
        let lines = try Self.events(of: batch, in: directory)
        let aside = Set(indexes)
        let kept = lines.indices.filter { !aside.contains($0) }.map { lines[$0] }
        let name = SpooledBatch.fileName(nextSequence)
        nextSequence += 1
        do { try Posix.mkdir(quarantineDirectory) } catch { throw SpoolError(.io, "\(error)", cause: error) }
        try writeSynced(Self.joined(indexes.sorted().map { lines[$0] }), name: "undeliverable/" + name)
        try writeSynced(Array((reason + "\n").utf8), name: "undeliverable/" + name + ".reason")
        _ = try replace(batch, with: kept.isEmpty ? [] : [kept[...]])
        return quarantineDirectory + "/" + name
    }

    /// Replaces a sealed batch by new batches (possibly none) holding `pieces` of its events.
    /// The new files are written and synced before the original is deleted.
    private func replace(_ batch: SpooledBatch, with pieces: [ArraySlice<ArraySlice<UInt8>>]) throws(SpoolError) -> [SpooledBatch] {
        guard let i = sealed.firstIndex(of: batch) else { return [batch] }
        var made: [SpooledBatch] = []
        for piece in pieces {
            let bytes = Self.joined(Array(piece))
            let made1 = SpooledBatch(sequence: nextSequence, events: piece.count, bytes: bytes.count)
            nextSequence += 1
            try writeSynced(bytes, name: made1.fileName)
            made.append(made1)
        }
        sealed.replaceSubrange(i...i, with: made)
        totalBytes += made.reduce(0) { $0 + $1.bytes }
        do { try Posix.syncDirectory(directory) } catch { throw SpoolError(.io, "\(error)", cause: error) }
        sealed.insert(batch, at: i)  // so remove() finds and accounts for it
        try remove(batch)
        return made
    }

    /// Event lines as a file: each followed by LF.
    private static func joined(_ lines: [ArraySlice<UInt8>]) -> [UInt8] {
        var bytes: [UInt8] = []
        for line in lines {
            bytes += line
            bytes.append(0x0A)
        }
        return bytes
    }

    /// Moves a batch the collector will never accept to `undeliverable/`, with the reason beside it.
    func quarantine(_ batch: SpooledBatch, reason: String) throws(SpoolError) {
        guard let i = sealed.firstIndex(of: batch) else { return }
        do {
            try Posix.mkdir(quarantineDirectory)
            try Posix.rename(directory + "/" + batch.fileName, quarantineDirectory + "/" + batch.fileName)
        } catch {
            throw SpoolError(.io, "cannot move \(batch.fileName) to \(quarantineDirectory): \(error)", cause: error)
        }
        try writeSynced(Array((reason + "\n").utf8), name: "undeliverable/" + batch.fileName + ".reason")
        sealed.remove(at: i)
        totalBytes -= batch.bytes
    }

    private func writeSynced(_ bytes: [UInt8], name: String) throws(SpoolError) {
        let path = directory + "/" + name
        do {
            let fd = try Posix.open(path, O_WRONLY | O_CREAT | O_TRUNC)
            defer { Posix.close(fd) }
            try Posix.writeAll(fd, bytes, path: path)
            try Posix.fsync(fd, path: path)
        } catch {
            throw SpoolError(.io, "cannot write \(path): \(error)", cause: error)
        }
    }
}
