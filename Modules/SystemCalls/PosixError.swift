#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    public var reason: String { Posix.describe(errno) }

    public var description: String { "\(operation): \(reason) (errno \(errno))" }

    /// A timeout (`ETIMEDOUT`), e.g. a connect or a blocking send that did not finish in time.
    public var isTimeout: Bool { errno == ETIMEDOUT }

    /// The peer went away (reset, broken pipe, not connected).
    public var isDisconnect: Bool { [ECONNRESET, EPIPE, ENOTCONN, ECONNABORTED, ESHUTDOWN].contains(errno) }

    /// The process or the system is out of file descriptors.
    public var isOutOfDescriptors: Bool { errno == EMFILE || errno == ENFILE }

    /// The disk (or the quota) is full.
    public var isNoSpace: Bool { errno == ENOSPC || errno == EDQUOT }

    /// The file would pass the process's file-size limit (`ulimit -f`, `RLIMIT_FSIZE`): `EFBIG`,
    /// which a write returns once SIGXFSZ is ignored (`Posix.ignoreFileSizeLimitSignal`).
    public var isFileTooLarge: Bool { errno == EFBIG }
}
