/// A value bound to one parameter of a statement, in either store.
///
/// Each store turns it into its own binding: SQLite binds it by type (`sqlite3_bind_*`);
/// PostgreSQL sends it with the type of the parameter it stands for.
public enum SQLValue: Sendable, Hashable {
    case null
    case int(Int64)
    case double(Double)
    case text(String)
    /// Bytes (a snapshot's PNG).
    case blob([UInt8])
}

/// A Swift value that binds as one `SQLValue`: what `SQLQuery`'s interpolation accepts.
public protocol SQLBindable {
    var sqlValue: SQLValue { get }
}

extension SQLValue: SQLBindable {
    public var sqlValue: SQLValue { self }
}

extension Int64: SQLBindable {
    public var sqlValue: SQLValue { .int(self) }
}

extension Int: SQLBindable {
    public var sqlValue: SQLValue { .int(Int64(self)) }
}

extension Double: SQLBindable {
    public var sqlValue: SQLValue { .double(self) }
}

extension String: SQLBindable {
    public var sqlValue: SQLValue { .text(self) }
}

extension Substring: SQLBindable {
    public var sqlValue: SQLValue { .text(String(self)) }
}

extension Bool: SQLBindable {
    /// 1 or 0: both stores keep flags as integers.
    public var sqlValue: SQLValue { .int(self ? 1 : 0) }
}

extension Optional: SQLBindable where Wrapped: SQLBindable {
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

extension Array: SQLBindable where Element == UInt8 {
    /// Bytes bind as a blob (a snapshot's PNG).
    public var sqlValue: SQLValue { .blob(self) }
}
