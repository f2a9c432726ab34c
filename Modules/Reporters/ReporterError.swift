import SystemCalls

/// A reporter could not deliver: what failed, on which file or stream, and the system's reason.
public struct ReporterError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of operation failed.
    public enum Code: String, Sendable, Hashable {
        case openFailed = "open"
        case writeFailed = "write"
        case syncFailed = "fsync"
        case closed
    }

    public var code: Code
    /// The path or stream name.
    public var target: String
    /// The errno value, 0 where none applies.
    public var errno: Int32

    public init(code: Code, target: String, errno: Int32 = 0) {
        self.code = code
        self.target = target
        self.errno = errno
    }

    /// The reporter's error for a failed system call on `target`.
    init(code: Code, target: String, _ error: PosixError) {
        self.init(code: code, target: target, errno: error.errno)
    }

    public var description: String {
        switch code {
        case .closed:
            return "\(target): the reporter was closed; create a new one to report again"
        case .openFailed:
            return "open(\(target)): \(Posix.describe(errno)) (errno \(errno)); check that the folder exists and is writable"
        case .writeFailed, .syncFailed:
            return "\(code.rawValue)(\(target)): \(Posix.describe(errno)) (errno \(errno)); check free space and permissions"
        }
    }
}
