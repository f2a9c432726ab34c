package import CSystemCalls

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
public import Darwin
#endif

extension Posix {
    /// Opens `path` close-on-exec.
    package static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(PosixError) -> Int32 {
        try check("open(\(path))") { Glibc.open(path, flags | O_CLOEXEC, mode) }
    }

    /// Writes all of `bytes` (short writes are continued). On a failure part of `bytes` may be
    /// written: callers that need whole records (the spool) truncate back themselves.
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(PosixError) {
        var offset = 0
        while offset < bytes.count {
            var count = bytes.count - offset
            #if DEBUG
            if let fault = FaultInjection.next(fd: fd, .write) {
                switch fault {
                case .wouldBlock, .error: throw PosixError("write(\(path))", errno: fault.errno)
                case .short(let n): count = max(1, min(n, count))
                }
            }
            #endif
            let n = try check("write(\(path))") {
                bytes.withUnsafeBytes { raw in Glibc.write(fd, raw.baseAddress! + offset, count) }
            }
            offset += n
        }
    }

    /// Writes `text` to standard error, ignoring failure: diagnostics must never fail the app.
    package static func writeToStandardError(_ text: String) {
        try? writeAll(2, Array(text.utf8), path: "standard error")
    }

    package static func fsync(_ fd: Int32, path: String) throws(PosixError) {
        _ = try check("fsync(\(path))") { Glibc.fsync(fd) }
    }

    /// Makes the data written to `fd` (and the size needed to read it back) durable, without
    /// the other metadata `fsync` also writes (`fdatasync`): one device flush. Debug builds
    /// count the calls per path and may delay or fail them (`FaultInjection.injectSyncFaults`).
    package static func fdatasync(_ fd: Int32, path: String) throws(PosixError) {
        #if DEBUG
        if let fault = FaultInjection.nextSync(path: path) {
            switch fault {
            case .error(let e): throw PosixError("fdatasync(\(path))", errno: e)
            case .delay(let d): Posix.sleep(d)
            }
        }
        #endif
        _ = try check("fdatasync(\(path))") { Glibc.fdatasync(fd) }
    }

    /// The device and inode `fd` is open on (`fstat`): whether a path still names that file.
    package static func fileIdentity(_ fd: Int32, path: String) throws(PosixError) -> FileIdentity {
        var st = stat()
        _ = try check("fstat(\(path))") { Glibc.fstat(fd, &st) }
        return FileIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }

    /// The device and inode `path` names now (`stat`); nil when nothing is there.
    package static func fileIdentity(path: String) throws(PosixError) -> FileIdentity? {
        var st = stat()
        do throws(PosixError) {
            _ = try check("stat(\(path))") { Glibc.fstatat(AT_FDCWD, path, &st, 0) }
        } catch where error.errno == ENOENT {
            return nil
        }
        return FileIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }

    /// The size in bytes of the file `fd` is open on (`fstat`).
    package static func fileSize(_ fd: Int32, path: String) throws(PosixError) -> UInt64 {
        var st = stat()
        _ = try check("fstat(\(path))") { Glibc.fstat(fd, &st) }
        return UInt64(st.st_size)
    }

    package static func ftruncate(_ fd: Int32, _ length: Int, path: String) throws(PosixError) {
        _ = try check("ftruncate(\(path))") { Glibc.ftruncate(fd, off_t(length)) }
    }

    package static func rename(_ from: String, _ to: String) throws(PosixError) {
        _ = try check("rename(\(from) → \(to))") { Glibc.rename(from, to) }
    }

    package static func unlink(_ path: String) throws(PosixError) {
        _ = try check("unlink(\(path))") { Glibc.unlink(path) }
    }

    /// Creates a folder (0755); one that exists already is fine.
    package static func mkdir(_ path: String) throws(PosixError) {
        do throws(PosixError) {
            _ = try check("mkdir(\(path))") { Glibc.mkdir(path, 0o755) }
        } catch where error.errno == EEXIST {}
    }

    /// Creates a folder and every missing folder above it (`mkdir -p`), each new one with `mode`;
    /// folders that exist are left as they are.
    package static func makeDirectories(_ path: String, mode: mode_t) throws(PosixError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + part
            do throws(PosixError) {
                _ = try check("mkdir(\(prefix))") { Glibc.mkdir(prefix, mode) }
            } catch where error.errno == EEXIST {}
        }
    }

    /// The bytes this process may still write on the filesystem that holds `path` (`statvfs`).
    package static func freeBytes(onFilesystemOf path: String) throws(PosixError) -> UInt64 {
        var free: UInt64 = 0
        _ = try check("statvfs(\(path))") { csc_free_bytes(path, &free) }
        return free
    }

    /// Gives the heap's free pages back to the system (`malloc_trim`): after a burst of large
    /// allocations, the process's resident size falls back to what it uses.
    package static func releaseFreeHeap() {
        _ = csc_release_free_heap()
    }

    /// Reads a whole file.
    package static func readFile(_ path: String) throws(PosixError) -> [UInt8] {
        let fd = try open(path, O_RDONLY)
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = try check("read(\(path))") {
                chunk.withUnsafeMutableBytes { raw in Glibc.read(fd, raw.baseAddress, raw.count) }
            }
            if n == 0 { return out }
            out.append(contentsOf: chunk[0..<n])
        }
    }

    /// Writes all of `bytes` at `offset` of the open file `fd` (`pwrite`, short writes continued).
    package static func write(_ fd: Int32, _ bytes: [UInt8], at offset: UInt64, path: String) throws(PosixError) {
        var done = 0
        while done < bytes.count {
            let n = try check("pwrite(\(path))") {
                bytes.withUnsafeBytes { raw in Glibc.pwrite(fd, raw.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done)) }
            }
            done += n
        }
    }

    /// Up to `count` bytes of the open file `fd` from `offset` (fewer only at the end of the file).
    package static func read(_ fd: Int32, count: Int, at offset: UInt64, path: String) throws(PosixError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            let n = try check("pread(\(path))") {
                bytes.withUnsafeMutableBytes { raw in Glibc.pread(fd, raw.baseAddress! + got, count - got, off_t(offset) + off_t(got)) }
            }
            if n == 0 { break }
            got += n
        }
        return Array(bytes[0..<got])
    }

    /// The target of the symbolic link at `path` (e.g. `/proc/self/exe`: the running program).
    package static func readLink(_ path: String) throws(PosixError) -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = try check("readlink(\(path))") {
            buffer.withUnsafeMutableBytes { raw in Glibc.readlink(path, raw.baseAddress!.assumingMemoryBound(to: CChar.self), raw.count) }
        }
        return String(decoding: buffer[0..<n], as: UTF8.self)
    }

    /// Whether `fd` is a terminal (`isatty`), e.g. to colour what a person reads.
    package static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    /// File names in a directory (no `.` or `..`).
    package static func listDirectory(_ path: String) throws(PosixError) -> [String] {
        guard let dir = opendir(path) else { throw PosixError("opendir(\(path))", errno: errno) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { p in
                p.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Takes an exclusive advisory lock on an open file without waiting; false when another
    /// process (or another open of the file) holds it. The kernel drops it when the fd closes,
    /// also when the process dies. An open-file-description lock (`F_OFD_SETLK`, Linux): unlike
    /// classic POSIX record locks it also conflicts within one process, and closing another fd keeps it.
    package static func tryLock(_ fd: Int32, path: String) throws(PosixError) -> Bool {
        do throws(PosixError) {
            _ = try check("fcntl(\(path), F_OFD_SETLK)") { csc_try_lock_file(fd) }
            return true
        } catch where error.errno == EAGAIN || error.errno == EACCES {
            return false
        }
    }

    /// True when another open of the file holds the lock `tryLock` takes; asks without taking
    /// it, so an owner starting meanwhile is never refused because of the question.
    package static func lockIsHeld(_ fd: Int32, path: String) throws(PosixError) -> Bool {
        try check("fcntl(\(path), F_OFD_GETLK)") { csc_lock_held(fd) } == 1
    }

    /// fsyncs a directory so renames and unlinks in it survive a power loss.
    package static func syncDirectory(_ path: String) throws(PosixError) {
        let fd = try open(path, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        try fsync(fd, path: path)
    }
}

/// Which file an fd or a path refers to: equal identities are the same file, whatever its names.
package struct FileIdentity: Hashable, Sendable {
    package var device: UInt64
    package var inode: UInt64
}
