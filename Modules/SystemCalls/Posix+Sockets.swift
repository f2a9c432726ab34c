#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Posix {
    package static func socket(_ address: SocketAddress) throws(PosixError) -> Int32 {
        #if canImport(Glibc)
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
        let type = SOCK_STREAM
        #endif
        return try check("socket(\(address.isIPv6 ? "AF_INET6" : "AF_INET"))") { Glibc.socket(address.family, type, 0) }
    }

    package static func setNonBlocking(_ fd: Int32, _ on: Bool = true) throws(PosixError) {
        let flags = try check("fcntl(F_GETFL)") { fcntl(fd, F_GETFL) }
        let new = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK
        _ = try check("fcntl(F_SETFL, O_NONBLOCK)") { fcntl(fd, F_SETFL, new) }
    }

    package static func setCloseOnExec(_ fd: Int32) throws(PosixError) {
        _ = try check("fcntl(F_SETFD, FD_CLOEXEC)") { fcntl(fd, F_SETFD, FD_CLOEXEC) }
    }

    package static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32, _ label: String) throws(PosixError) {
        var v = value
        _ = try check("setsockopt(\(label))") { setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size)) }
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
            _ = try check("setsockopt(\(label))") { setsockopt(fd, SOL_SOCKET, name, &tv, socklen_t(MemoryLayout<timeval>.size)) }
        }
    }

    package static func bind(_ fd: Int32, _ address: SocketAddress) throws(PosixError) {
        _ = try address.withSockAddr { (sa, len) throws(PosixError) -> Int32 in
            try check("bind(\(address))") { Glibc.bind(fd, sa, len) }
        }
    }

    package static func listen(_ fd: Int32, backlog: Int32, _ address: SocketAddress) throws(PosixError) {
        _ = try check("listen(\(address))") { Glibc.listen(fd, backlog) }
    }

    /// Accepts one connection as a non-blocking, close-on-exec fd; nil when none is waiting.
    package static func accept(_ fd: Int32) throws(PosixError) -> (fd: Int32, peer: SocketAddress)? {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        #if DEBUG
        if let e = FaultInjection.nextAcceptError(listener: fd) { throw PosixError("accept", errno: e) }
        #endif
        let accepted = try syscall("accept", wouldBlock: true) {
            withUnsafeMutablePointer(to: &storage) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in Glibc.accept(fd, sa, &len) }
            }
        }
        guard let client = accepted else { return nil }
        do {
            try setNonBlocking(client)
            try setCloseOnExec(client)
        } catch {
            close(client)
            throw error
        }
        return (client, SocketAddress(storage) ?? SocketAddress(host: "?", port: 0))
    }

    /// Connects a blocking socket within `timeout` (non-blocking connect, then poll).
    package static func connect(_ fd: Int32, _ address: SocketAddress, timeout: Duration) throws(PosixError) {
        try setNonBlocking(fd, true)
        let what = "connect(\(address))"
        let started = try address.withSockAddr { (sa, len) throws(PosixError) -> Bool in
            do throws(PosixError) {
                _ = try check(what) { Glibc.connect(fd, sa, len) }
                return true
            } catch where error.errno == EINPROGRESS {
                return false
            }
        }
        if !started {
            guard try poll(fd, events: Int16(POLLOUT), timeout: timeout) else { throw PosixError(what, errno: ETIMEDOUT) }
            var err: Int32 = 0
            var len = socklen_t(MemoryLayout<Int32>.size)
            _ = try check("getsockopt(SO_ERROR)") { getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) }
            if err != 0 { throw PosixError(what, errno: err) }
        }
        try setNonBlocking(fd, false)
    }

    package static func localAddress(_ fd: Int32) throws(PosixError) -> SocketAddress {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try check("getsockname") {
            withUnsafeMutablePointer(to: &storage) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in getsockname(fd, sa, &len) }
            }
        }
        return SocketAddress(storage) ?? SocketAddress(host: "?", port: 0)
    }

    /// Reads what is there (0 means end of stream).
    package static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(PosixError) -> IOResult {
        var count = buffer.count
        #if DEBUG
        if let fault = FaultInjection.next(fd: fd, .read) {
            switch fault {
            case .wouldBlock: return .wouldBlock
            case .error(let e): throw PosixError("read(fd \(fd))", errno: e)
            case .short(let n): count = max(1, min(n, count))
            }
        }
        #endif
        return try checkIO("read(fd \(fd))") { Glibc.read(fd, buffer.baseAddress, count) }
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

    /// Sends what a non-blocking socket takes now of `output[offset...]`, advancing `offset`: a
    /// server's buffered output. Drops the sent head once it passes 1 MiB and half the buffer (a
    /// reader that never fully catches up), and empties the buffer when all of it went (keeping
    /// up to 64 KiB of capacity). Returns how many bytes went and whether nothing is left; throws
    /// when the peer is gone.
    package static func sendPending(
        _ fd: Int32, _ output: inout [UInt8], offset: inout Int
    ) throws(PosixError) -> (sent: Int, drained: Bool) {
        var sent = 0
        while offset < output.count {
            switch try withBytes(output, from: offset, { (raw) throws(PosixError) -> IOResult in try send(fd, raw) }) {
            case .wouldBlock:
                return (sent, false)
            case .processed(let n):
                offset += n
                sent += n
                if offset >= 1 << 20 && offset * 2 >= output.count {
                    output.removeFirst(offset)
                    offset = 0
                }
            }
        }
        output.removeAll(keepingCapacity: output.capacity <= 65536)
        offset = 0
        return (sent, true)
    }

    /// Writes all of `bytes` on a blocking socket (partial writes are continued); a send
    /// timeout (`SO_SNDTIMEO`) throws `ETIMEDOUT`.
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

    /// Waits until `fd` has one of `events`; false on timeout.
    package static func poll(_ fd: Int32, events: Int16, timeout: Duration) throws(PosixError) -> Bool {
        var p = pollfd(fd: fd, events: events, revents: 0)
        let ms = Int32(clamping: timeout.milliseconds)
        return try check("poll(fd \(fd))") { Glibc.poll(&p, 1, ms) } > 0
    }

    /// Waits on many fds; returns how many have events.
    package static func poll(_ fds: inout [pollfd], timeoutMilliseconds: Int32) throws(PosixError) -> Int {
        let n = nfds_t(fds.count)
        return try fds.withUnsafeMutableBufferPointer { (p) throws(PosixError) -> Int in
            Int(try check("poll(\(n) fds)") { Glibc.poll(p.baseAddress, n, timeoutMilliseconds) })
        }
    }

    /// Tells the peer nothing more will be sent.
    package static func shutdownWrite(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))  // fails only on a peer already gone: nothing to do
    }

    /// Closes any descriptor. Linux frees the fd even when close reports `EINTR`, so it is
    /// never retried; `EBADF` (a double close) traps.
    package static func close(_ fd: Int32) {
        #if DEBUG
        FaultInjection.clear(fd: fd)
        #endif
        if Glibc.close(fd) != 0 && errno == EBADF {
            preconditionFailure("close(fd \(fd)): Bad file descriptor: a double close")
        }
    }

    /// A non-blocking, close-on-exec pipe used to wake a poll loop.
    package static func pipe() throws(PosixError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        _ = try check("pipe") { Glibc.pipe(&fds) }
        for fd in fds {
            try setNonBlocking(fd)
            try setCloseOnExec(fd)
        }
        return (fds[0], fds[1])
    }

    /// Wakes the loop waiting on the pipe's read end.
    package static func wake(_ fd: Int32) {
        var b: UInt8 = 1
        _ = Glibc.write(fd, &b, 1)  // a full pipe already means "wake up": EAGAIN is fine
    }

    /// Empties the pipe's read end.
    package static func drain(_ fd: Int32) {
        var buf = [UInt8](repeating: 0, count: 256)
        while Glibc.read(fd, &buf, 256) > 0 {}
    }
}
