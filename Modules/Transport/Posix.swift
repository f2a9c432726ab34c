#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The write end of the signal pipe; -1 when no signal is routed. An atomic, because the signal
/// handler reads it on whatever thread the kernel interrupts.
private let signalPipeWriteFD = Atomic<Int32>(-1)

/// A signal disposition as `signal(2)` returns it.
package typealias SignalHandler = __sighandler_t?

/// The signal handler: one write of the signal number, errno preserved (async-signal-safe).
private func writeSignalToPipe(_ signal: Int32) {
    let saved = errno
    let fd = signalPipeWriteFD.load(ordering: .relaxed)
    if fd >= 0 {
        var b = UInt8(truncatingIfNeeded: signal)
        _ = Glibc.write(fd, &b, 1)
    }
    errno = saved
}

/// A failed system call: what was attempted, on what, and errno.
///
/// `description` reads like `connect(127.0.0.1:7070): Connection refused (errno 111)`.
public struct PosixError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The call and its target, e.g. `connect(127.0.0.1:7070)`.
    public var operation: String
    public var errno: Int32

    public init(_ operation: String, errno: Int32) {
        self.operation = operation
        self.errno = errno
    }

    /// The C library's text for `errno`.
    public var reason: String { String(cString: strerror(errno)) }

    public var description: String { "\(operation): \(reason) (errno \(errno))" }

    /// A timeout (`ETIMEDOUT`), e.g. a connect or a blocking send that did not finish in time.
    public var isTimeout: Bool { errno == ETIMEDOUT }

    /// The peer went away (reset, broken pipe, not connected).
    public var isDisconnect: Bool { [ECONNRESET, EPIPE, ENOTCONN, ECONNABORTED, ESHUTDOWN].contains(errno) }
}

/// The result of a non-blocking read or write: bytes moved, or nothing until the fd is ready.
package enum IOResult: Equatable {
    case processed(Int)
    case wouldBlock
}

/// Every system call of the module, in one place (swift-nio's `enum Posix`): `EINTR` is
/// retried, would-block is a value, programmer errors (`EBADF`, `EFAULT`) trap, and every
/// other failure throws a `PosixError` naming the call and its target.
package enum Posix {
    // MARK: error handling

    @inline(__always)
    package static func check(_ what: @autoclosure () -> String, _ body: () -> Int) throws(PosixError) -> Int {
        while true {
            let r = body()
            if r >= 0 { return r }
            let e = errno
            if e == EINTR { continue }
            trapOnProgrammerError(e, what())
            throw PosixError(what(), errno: e)
        }
    }

    /// Like `check`, but `EAGAIN`/`EWOULDBLOCK` come back as `.wouldBlock`.
    @inline(__always)
    package static func checkIO(_ what: @autoclosure () -> String, _ body: () -> Int) throws(PosixError) -> IOResult {
        while true {
            let r = body()
            if r >= 0 { return .processed(r) }
            let e = errno
            if e == EINTR { continue }
            if e == EAGAIN || e == EWOULDBLOCK { return .wouldBlock }
            trapOnProgrammerError(e, what())
            throw PosixError(what(), errno: e)
        }
    }

    package static func trapOnProgrammerError(_ e: Int32, _ what: String) {
        if e == EBADF || e == EFAULT {
            preconditionFailure("\(what): \(String(cString: strerror(e))) (errno \(e)): a bug in Transport")
        }
    }

    // MARK: sockets

    package static func socket(_ address: SocketAddress) throws(PosixError) -> Int32 {
        #if canImport(Glibc)
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
        let type = SOCK_STREAM
        #endif
        let fd = try check("socket(\(address.isIPv6 ? "AF_INET6" : "AF_INET"))") {
            Int(Glibc.socket(address.family, type, 0))
        }
        return Int32(fd)
    }

    package static func setNonBlocking(_ fd: Int32, _ on: Bool = true) throws(PosixError) {
        let flags = try check("fcntl(F_GETFL)") { Int(fcntl(fd, F_GETFL)) }
        let new = on ? Int32(flags) | O_NONBLOCK : Int32(flags) & ~O_NONBLOCK
        _ = try check("fcntl(F_SETFL, O_NONBLOCK)") { Int(fcntl(fd, F_SETFL, new)) }
    }

    package static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32, _ label: String) throws(PosixError) {
        var v = value
        _ = try check("setsockopt(\(label))") {
            Int(setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size)))
        }
    }

    package static func setNoDelay(_ fd: Int32) throws(PosixError) {
        try setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1, "TCP_NODELAY")
    }

    package static func setReuseAddress(_ fd: Int32) throws(PosixError) {
        try setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR")
    }

    /// Sets `SO_RCVTIMEO` and/or `SO_SNDTIMEO`: a blocking call then fails with would-block.
    package static func setTimeouts(_ fd: Int32, _ duration: Duration, receive: Bool = true, send: Bool = true) throws(PosixError) {
        let (s, attos) = duration.components
        var tv = timeval(tv_sec: Int(max(0, s)), tv_usec: Int(attos / 1_000_000_000_000))
        if tv.tv_sec == 0 && tv.tv_usec == 0 { tv.tv_usec = 1 }  // zero would mean "forever"
        var options: [(Int32, String)] = []
        if receive { options.append((SO_RCVTIMEO, "SO_RCVTIMEO")) }
        if send { options.append((SO_SNDTIMEO, "SO_SNDTIMEO")) }
        for (name, label) in options {
            _ = try check("setsockopt(\(label))") {
                Int(setsockopt(fd, SOL_SOCKET, name, &tv, socklen_t(MemoryLayout<timeval>.size)))
            }
        }
    }

    package static func bind(_ fd: Int32, _ address: SocketAddress) throws(PosixError) {
        _ = try address.withSockAddr { (sa, len) throws(PosixError) -> Int in
            try check("bind(\(address))") { Int(Glibc.bind(fd, sa, len)) }
        }
    }

    package static func listen(_ fd: Int32, backlog: Int32, _ address: SocketAddress) throws(PosixError) {
        _ = try check("listen(\(address))") { Int(Glibc.listen(fd, backlog)) }
    }

    /// Accepts one connection as a non-blocking, close-on-exec fd; nil when none is waiting.
    package static func accept(_ fd: Int32) throws(PosixError) -> (fd: Int32, peer: SocketAddress)? {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let r = try checkIO("accept") {
            withUnsafeMutablePointer(to: &storage) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in Int(Glibc.accept(fd, sa, &len)) }
            }
        }
        guard case .processed(let n) = r else { return nil }
        let client = Int32(n)
        do {
            try setNonBlocking(client)
            _ = try check("fcntl(F_SETFD, FD_CLOEXEC)") { Int(fcntl(client, F_SETFD, FD_CLOEXEC)) }
        } catch {
            close(client)
            throw error
        }
        return (client, SocketAddress(storage) ?? SocketAddress(host: "?", port: 0))
    }

    /// Connects a blocking socket within `timeout` (non-blocking connect, then poll).
    package static func connect(_ fd: Int32, _ address: SocketAddress, timeout: Duration) throws(PosixError) {
        try setNonBlocking(fd, true)
        let started = try address.withSockAddr { (sa, len) throws(PosixError) -> Bool in
            while true {
                if Glibc.connect(fd, sa, len) == 0 { return true }
                let e = errno
                if e == EINTR { continue }
                if e == EINPROGRESS { return false }
                trapOnProgrammerError(e, "connect(\(address))")
                throw PosixError("connect(\(address))", errno: e)
            }
        }
        if !started {
            let ready = try poll(fd, events: Int16(POLLOUT), timeout: timeout)
            guard ready else { throw PosixError("connect(\(address))", errno: ETIMEDOUT) }
            var err: Int32 = 0
            var len = socklen_t(MemoryLayout<Int32>.size)
            _ = try check("getsockopt(SO_ERROR)") { Int(getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len)) }
            if err != 0 { throw PosixError("connect(\(address))", errno: err) }
        }
        try setNonBlocking(fd, false)
    }

    package static func localAddress(_ fd: Int32) throws(PosixError) -> SocketAddress {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try check("getsockname") {
            withUnsafeMutablePointer(to: &storage) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in Int(getsockname(fd, sa, &len)) }
            }
        }
        return SocketAddress(storage) ?? SocketAddress(host: "?", port: 0)
    }

    /// Reads what is there (0 means end of stream).
    package static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(PosixError) -> IOResult {
        #if DEBUG
        if let fault = FaultInjection.next(fd: fd, .read) {
            switch fault {
            case .wouldBlock: return .wouldBlock
            case .error(let e): throw PosixError("read(fd \(fd))", errno: e)
            case .short(let n):
                let limited = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<max(1, min(n, buffer.count))])
                return try checkIO("read(fd \(fd))") { Glibc.read(fd, limited.baseAddress, limited.count) }
            }
        }
        #endif
        return try checkIO("read(fd \(fd))") { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    /// Writes what the kernel takes now, without raising SIGPIPE on a closed peer.
    package static func send(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(PosixError) -> IOResult {
        var count = buffer.count
        #if DEBUG
        if let fault = FaultInjection.next(fd: fd, .write) {
            switch fault {
            case .wouldBlock: return .wouldBlock
            case .error(let e): throw PosixError("send(fd \(fd))", errno: e)
            case .short(let n): count = max(1, min(n, count))
            }
        }
        #endif
        return try checkIO("send(fd \(fd))") { Glibc.send(fd, buffer.baseAddress, count, Int32(MSG_NOSIGNAL)) }
    }

    /// Writes all of `bytes` on a blocking socket (partial writes are continued).
    package static func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws(PosixError) {
        var offset = 0
        while offset < bytes.count {
            let r = try withBytes(bytes, from: offset) { (raw) throws(PosixError) -> IOResult in try send(fd, raw) }
            switch r {
            case .processed(let n): offset += n
            case .wouldBlock: throw PosixError("send(fd \(fd))", errno: ETIMEDOUT)
            }
        }
    }

    /// Runs `body` on the bytes of `array` from `offset`, with a typed error.
    package static func withBytes<R>(
        _ array: [UInt8], from offset: Int, _ body: (UnsafeRawBufferPointer) throws(PosixError) -> R
    ) throws(PosixError) -> R {
        var failure: PosixError?
        let r: R? = array.withUnsafeBytes { raw in
            do throws(PosixError) {
                return try body(UnsafeRawBufferPointer(rebasing: raw[offset...]))
            } catch {
                failure = error
                return nil
            }
        }
        if let failure { throw failure }
        return r!
    }

    /// Runs `body` on a mutable byte buffer, with a typed error.
    package static func withMutableBytes<R>(
        _ array: inout [UInt8], _ body: (UnsafeMutableRawBufferPointer) throws(PosixError) -> R
    ) throws(PosixError) -> R {
        var failure: PosixError?
        let r: R? = array.withUnsafeMutableBytes { raw in
            do throws(PosixError) {
                return try body(raw)
            } catch {
                failure = error
                return nil
            }
        }
        if let failure { throw failure }
        return r!
    }

    /// Waits until `fd` has one of `events`; false on timeout.
    package static func poll(_ fd: Int32, events: Int16, timeout: Duration) throws(PosixError) -> Bool {
        var p = pollfd(fd: fd, events: events, revents: 0)
        let ms = Int32(clamping: timeout.milliseconds)
        let r = try check("poll(fd \(fd))") { Int(Glibc.poll(&p, 1, ms)) }
        return r > 0
    }

    /// Waits on many fds; returns how many have events.
    package static func poll(_ fds: inout [pollfd], timeoutMilliseconds: Int32) throws(PosixError) -> Int {
        let n = nfds_t(fds.count)
        return try fds.withUnsafeMutableBufferPointer { (p) throws(PosixError) -> Int in
            try check("poll(\(n) fds)") { Int(Glibc.poll(p.baseAddress, n, timeoutMilliseconds)) }
        }
    }

    // MARK: epoll (Linux)

    /// `epoll_create1`/`epoll_ctl`/`epoll_wait`, looked up at run time: the Glibc module does
    /// not export them, and a C shim target would change Package.swift. nil off Linux.
    package struct Epoll: Sendable {
        typealias Create = @convention(c) (Int32) -> Int32
        typealias Control = @convention(c) (Int32, Int32, Int32, UnsafeMutableRawPointer?) -> Int32
        typealias Wait = @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32
        let create: Create
        let control: Control
        let wait: Wait

        /// `struct epoll_event` is packed (12 bytes) on x86_64, naturally aligned (16) elsewhere.
        #if arch(x86_64)
        package static let eventSize = 12
        package static let dataOffset = 4
        #else
        package static let eventSize = 16
        package static let dataOffset = 8
        #endif

        package static let shared: Epoll? = {
            #if os(Linux)
            let handle = UnsafeMutableRawPointer(bitPattern: 0)  // RTLD_DEFAULT
            guard let c = dlsym(handle, "epoll_create1"), let m = dlsym(handle, "epoll_ctl"),
                let w = dlsym(handle, "epoll_wait")
            else { return nil }
            return Epoll(
                create: unsafeBitCast(c, to: Create.self), control: unsafeBitCast(m, to: Control.self),
                wait: unsafeBitCast(w, to: Wait.self))
            #else
            return nil
            #endif
        }()
    }

    package static func epollCreate(_ e: Epoll) throws(PosixError) -> Int32 {
        Int32(try check("epoll_create1") { Int(e.create(O_CLOEXEC)) })
    }

    /// `op` is 1 (add), 2 (delete) or 3 (modify); `events` uses poll's bit values, which
    /// epoll shares (IN 0x1, OUT 0x4, ERR 0x8, HUP 0x10).
    package static func epollControl(_ e: Epoll, _ epfd: Int32, op: Int32, fd: Int32, events: UInt32, data: UInt64)
        throws(PosixError)
    {
        var event = [UInt8](repeating: 0, count: 16)
        event.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: events, toByteOffset: 0, as: UInt32.self)
            raw.storeBytes(of: data, toByteOffset: Epoll.dataOffset, as: UInt64.self)
        }
        _ = try check("epoll_ctl(op \(op), fd \(fd))") {
            event.withUnsafeMutableBytes { Int(e.control(epfd, op, fd, $0.baseAddress)) }
        }
    }

    /// Waits for events into `buffer` (room for `capacity` events); returns how many.
    package static func epollWait(
        _ e: Epoll, _ epfd: Int32, into buffer: UnsafeMutableRawPointer, capacity: Int32, timeoutMilliseconds: Int32
    ) throws(PosixError) -> Int {
        try check("epoll_wait") { Int(e.wait(epfd, buffer, capacity, timeoutMilliseconds)) }
    }

    package static func shutdownWrite(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))  // fails only on a peer already gone: nothing to do
    }

    package static func close(_ fd: Int32) {
        #if DEBUG
        FaultInjection.clear(fd: fd)
        #endif
        // Linux frees the fd even when close reports EINTR, so it is never retried.
        if Glibc.close(fd) != 0 && errno == EBADF {
            preconditionFailure("close(fd \(fd)): Bad file descriptor: a double close in Transport")
        }
    }

    /// A non-blocking, close-on-exec pipe used to wake a poll loop.
    package static func pipe() throws(PosixError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        _ = try check("pipe") { Int(Glibc.pipe(&fds)) }
        for fd in fds {
            try setNonBlocking(fd)
            _ = try check("fcntl(F_SETFD, FD_CLOEXEC)") { Int(fcntl(fd, F_SETFD, FD_CLOEXEC)) }
        }
        return (fds[0], fds[1])
    }

    package static func wake(_ fd: Int32) {
        var b: UInt8 = 1
        _ = Glibc.write(fd, &b, 1)  // a full pipe already means "wake up": EAGAIN is fine
    }

    package static func drain(_ fd: Int32) {
        var buf = [UInt8](repeating: 0, count: 256)
        while Glibc.read(fd, &buf, 256) > 0 {}
    }

    /// Raises the soft fd limit toward `wanted` (never above the hard limit); returns the new soft limit.
    package static func raiseFileLimit(to wanted: Int) -> Int {
        var rl = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &rl) == 0 else { return 0 }
        if rl.rlim_cur < rlim_t(wanted) {
            rl.rlim_cur = min(rlim_t(wanted), rl.rlim_max)
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &rl)
            _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &rl)
        }
        return Int(rl.rlim_cur)
    }

    /// Routes `signals` to a pipe: a handler (async-signal-safe: one `write`) puts each signal's
    /// number on it, whichever thread the kernel picked. Returns the read end and the actions to
    /// restore. A Dispatch signal source over `SIG_IGN` can lose a process-directed signal that
    /// lands on a thread Dispatch does not watch; a handler cannot.
    /// (glibc's `signal` installs with BSD semantics: the handler stays, interrupted calls restart.)
    package static func routeSignalsToPipe(_ signals: [Int32]) throws(PosixError) -> (readFD: Int32, previous: [(Int32, SignalHandler)]) {
        let (r, w) = try pipe()
        guard signalPipeWriteFD.compareExchange(expected: -1, desired: w, ordering: .sequentiallyConsistent).exchanged else {
            close(r)
            close(w)
            throw PosixError("sigaction (signals are already routed to another waiter)", errno: EBUSY)
        }
        var previous: [(Int32, SignalHandler)] = []
        var set = sigset_t()
        sigemptyset(&set)
        for s in signals {
            previous.append((s, Glibc.signal(s, writeSignalToPipe)))
            sigaddset(&set, s)
        }
        // A parent may have started us with these signals blocked (a mask is inherited across
        // exec): unblock them on this thread, so at least one thread takes them.
        _ = pthread_sigmask(SIG_UNBLOCK, &set, nil)
        return (r, previous)
    }

    /// Blocks until a routed signal arrives, or `readFD` is closed; returns the signal (0 when closed).
    package static func awaitSignal(_ readFD: Int32) -> Int32 {
        while true {
            var p = pollfd(fd: readFD, events: Int16(POLLIN), revents: 0)
            let n = Glibc.poll(&p, 1, -1)
            if n < 0 {
                if errno == EINTR { continue }
                return 0
            }
            var b: UInt8 = 0
            let got = Glibc.read(readFD, &b, 1)
            if got == 1 { return Int32(b) }
            if got < 0, errno == EAGAIN || errno == EINTR { continue }
            return 0
        }
    }

    /// Puts back the actions `routeSignalsToPipe` replaced and closes its pipe.
    package static func unrouteSignals(_ previous: [(Int32, SignalHandler)], readFD: Int32) {
        for (s, old) in previous { _ = Glibc.signal(s, old) }
        let w = signalPipeWriteFD.exchange(-1, ordering: .sequentiallyConsistent)
        if w >= 0 { close(w) }
        close(readFD)
    }

    /// Microseconds since the Unix epoch (the spool's sequence floor).
    package static func wallClockMicros() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000 + Int64(ts.tv_nsec) / 1000
    }

    // MARK: files (the spool)

    package static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(PosixError) -> Int32 {
        Int32(try check("open(\(path))") { Int(Glibc.open(path, flags | O_CLOEXEC, mode)) })
    }

    package static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(PosixError) {
        var offset = 0
        while offset < bytes.count {
            let n = try check("write(\(path))") {
                bytes.withUnsafeBytes { raw in Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset) }
            }
            offset += n
        }
    }

    package static func fsync(_ fd: Int32, path: String) throws(PosixError) {
        _ = try check("fsync(\(path))") { Int(Glibc.fsync(fd)) }
    }

    package static func ftruncate(_ fd: Int32, _ length: Int, path: String) throws(PosixError) {
        _ = try check("ftruncate(\(path))") { Int(Glibc.ftruncate(fd, off_t(length))) }
    }

    package static func rename(_ from: String, _ to: String) throws(PosixError) {
        _ = try check("rename(\(from) → \(to))") { Int(Glibc.rename(from, to)) }
    }

    package static func unlink(_ path: String) throws(PosixError) {
        _ = try check("unlink(\(path))") { Int(Glibc.unlink(path)) }
    }

    package static func mkdir(_ path: String) throws(PosixError) {
        if Glibc.mkdir(path, 0o755) != 0 && errno != EEXIST { throw PosixError("mkdir(\(path))", errno: errno) }
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
    /// also when the process dies.
    package static func tryLock(_ fd: Int32, path: String) throws(PosixError) -> Bool {
        // An open-file-description lock (F_OFD_SETLK, Linux): unlike classic POSIX record
        // locks it also conflicts within one process, and closing another fd keeps it.
        let ofdSetLock: Int32 = 37
        var request = flock()
        request.l_type = Int16(F_WRLCK)
        request.l_whence = Int16(SEEK_SET)
        while true {
            if fcntl(fd, ofdSetLock, &request) == 0 { return true }
            let e = errno
            if e == EINTR { continue }
            if e == EAGAIN || e == EACCES { return false }
            throw PosixError("fcntl(\(path), F_OFD_SETLK)", errno: e)
        }
    }

    /// fsyncs a directory so renames and unlinks in it survive a power loss.
    package static func syncDirectory(_ path: String) throws(PosixError) {
        let fd = try open(path, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        try fsync(fd, path: path)
    }
}

extension Duration {
    /// Whole milliseconds, rounded up so a tiny positive timeout never becomes 0 ("don't wait").
    var milliseconds: Int64 {
        let (s, a) = components
        return s * 1000 + (a + 999_999_999_999_999) / 1_000_000_000_000_000
    }
}

#if DEBUG
/// Debug-only seam: tests make chosen fds see would-block, short transfers or errors
/// (`ECONNRESET`) without a hostile kernel. Cleared when the fd is closed.
package enum FaultInjection {
    /// What the next read or write on an fd sees instead of the real call.
    package enum Fault: Sendable, Equatable {
        case wouldBlock
        case short(Int)
        case error(Int32)
    }

    /// Which direction a fault applies to.
    package enum Direction: Sendable { case read, write }

    private static let plans = Mutex<[Int32: (reads: [Fault], writes: [Fault])]>([:])

    /// Queues faults for the next calls on `fd`; each is consumed once, in order.
    package static func inject(fd: Int32, reads: [Fault] = [], writes: [Fault] = []) {
        plans.withLock { p in
            var plan = p[fd] ?? ([], [])
            plan.reads += reads
            plan.writes += writes
            p[fd] = plan
        }
    }

    package static func next(fd: Int32, _ direction: Direction) -> Fault? {
        plans.withLock { p -> Fault? in
            guard var plan = p[fd] else { return nil }
            var fault: Fault?
            switch direction {
            case .read: if !plan.reads.isEmpty { fault = plan.reads.removeFirst() }
            case .write: if !plan.writes.isEmpty { fault = plan.writes.removeFirst() }
            }
            p[fd] = plan.reads.isEmpty && plan.writes.isEmpty ? nil : plan
            return fault
        }
    }

    package static func clear(fd: Int32) {
        plans.withLock { _ = $0.removeValue(forKey: fd) }
    }
}
#endif
