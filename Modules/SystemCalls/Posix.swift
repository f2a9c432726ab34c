// The C library's types and constants (`O_RDONLY`, `ENOENT`, `SIGTERM`, `timespec`) reach the
// other modules through this one, so none imports the C library itself; its system calls stay
// here (`SystemCallBoundaryTests` scans the sources for raw calls elsewhere).
#if canImport(Glibc)
@_exported import Glibc
#elseif canImport(Darwin)
@_exported import Darwin
#endif

/// The result of a non-blocking read or write: bytes moved, or nothing until the fd is ready.
package enum IOResult: Equatable, Sendable {
    case processed(Int)
    case wouldBlock
}

/// Every system call of the package, in one namespace (swift-nio's `enum Posix` in
/// `NIOPosix/System.swift`), one file per concern: `Posix+Sockets`, `Posix+Epoll`,
/// `Posix+Signals`, `Posix+Files`, `Posix+Limits`, `Posix+Clock`; fault injection for tests
/// in `Posix+Testing`. Every call goes through `syscall`: `EINTR` is retried, would-block is
/// a value where the caller asks for it, programmer errors (`EBADF`, `EFAULT`) trap, and every
/// other failure throws a `PosixError` naming the call and its target.
package enum Posix {
    /// Runs `body` (a C call returning -1 with `errno` on failure) until it does not fail with
    /// `EINTR`. With `wouldBlock: true`, `EAGAIN`/`EWOULDBLOCK` return nil instead of throwing.
    /// `what` names the call and its target for the error, e.g. `connect(127.0.0.1:7070)`.
    @inline(__always)
    package static func syscall<T: BinaryInteger>(
        _ what: @autoclosure () -> String, wouldBlock: Bool = false, _ body: () -> T
    ) throws(PosixError) -> T? {
        while true {
            let r = body()
            if r >= 0 { return r }
            let e = errno
            if e == EINTR { continue }
            if wouldBlock && (e == EAGAIN || e == EWOULDBLOCK) { return nil }
            trapOnProgrammerError(e, what())
            throw PosixError(what(), errno: e)
        }
    }

    /// `syscall` for calls that cannot would-block: the result itself.
    @inline(__always)
    package static func check<T: BinaryInteger>(_ what: @autoclosure () -> String, _ body: () -> T) throws(PosixError) -> T {
        try syscall(what(), body)!
    }

    /// `syscall` for non-blocking reads and writes: bytes moved, or `.wouldBlock`.
    @inline(__always)
    package static func checkIO(_ what: @autoclosure () -> String, _ body: () -> Int) throws(PosixError) -> IOResult {
        guard let n = try syscall(what(), wouldBlock: true, body) else { return .wouldBlock }
        return .processed(n)
    }

    /// A bad descriptor or address is a bug in the caller, not a condition to handle.
    package static func trapOnProgrammerError(_ e: Int32, _ what: String) {
        if e == EBADF || e == EFAULT {
            preconditionFailure("\(what): \(describe(e)) (errno \(e)): a bug in the caller")
        }
    }

    /// The C library's text for an errno value.
    package static func describe(_ e: Int32) -> String {
        guard let p = strerror(e) else { return "error \(e)" }
        return String(cString: p)
    }
}
