/// One row of a result, read by column name: what both stores' cursors offer, so code that reads
/// rows says which column it means (`row["device_id"]`) and not where it sits (`r[11]`).
public protocol SQLRow {
    /// The value of the column named `name`; throws when the result has no such column.
    func value(named name: String) throws(SQLDecodingError) -> SQLValue
}

/// A Swift type read from one column.
public protocol SQLDecodable {
    init(sqlValue: SQLValue, column: String) throws(SQLDecodingError)
}

/// A row's column could not be read as the type asked for. A store turns it into its own error.
public struct SQLDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        let name: String
        /// The result has no column of that name.
        public static let noSuchColumn = Code(name: "no such column")
        /// The column holds a value of another type (or NULL where one is required).
        public static let typeMismatch = Code(name: "type mismatch")
        public var description: String { name }
    }

    public let code: Code
    public let column: String
    public let found: SQLValue?

    public init(_ code: Code, column: String, found: SQLValue? = nil) {
        self.code = code
        self.column = column
        self.found = found
    }

    public var description: String {
        switch code {
        case .noSuchColumn: "the result has no column \"\(column)\""
        default: "column \"\(column)\": \(code) (found \(found.map { "\($0)" } ?? "nothing"))"
        }
    }
}

extension SQLRow {
    /// The column `name` as `T`.
    @inlinable
    public func decode<T: SQLDecodable>(_ name: String, as type: T.Type = T.self) throws(SQLDecodingError) -> T {
        try T(sqlValue: value(named: name), column: name)
    }

    @inlinable
    public subscript<T: SQLDecodable>(_ name: String, as type: T.Type = T.self) -> T {
        get throws(SQLDecodingError) { try decode(name, as: type) }
    }
}

extension Int64: SQLDecodable {
    @inlinable
    public init(sqlValue: SQLValue, column: String) throws(SQLDecodingError) {
        switch sqlValue {
        case .int(let v): self = v
        // PostgreSQL's text results: a store that reads text decodes it here.
        case .text(let t) where Int64(t) != nil: self = Int64(t)!
        default: throw SQLDecodingError(.typeMismatch, column: column, found: sqlValue)
        }
    }
}

extension Int: SQLDecodable {
    @inlinable
    public init(sqlValue: SQLValue, column: String) throws(SQLDecodingError) {
        let v = try Int64(sqlValue: sqlValue, column: column)
        guard let i = Int(exactly: v) else { throw SQLDecodingError(.typeMismatch, column: column, found: sqlValue) }
        self = i
    }
}

extension Double: SQLDecodable {
    @inlinable
    public init(sqlValue: SQLValue, column: String) throws(SQLDecodingError) {
        switch sqlValue {
        case .double(let v): self = v
        case .int(let v): self = Double(v)
        case .text(let t) where Double(t) != nil: self = Double(t)!
        default: throw SQLDecodingError(.typeMismatch, column: column, found: sqlValue)
        }
    }
}

extension String: SQLDecodable {
    @inlinable
    public init(sqlValue: SQLValue, column: String) throws(SQLDecodingError) {
        guard case .text(let t) = sqlValue else { throw SQLDecodingError(.typeMismatch, column: column, found: sqlValue) }
        self = t
    }
}

extension Bool: SQLDecodable {
    @inlinable
    public init(sqlValue: SQLValue, column: String) throws(SQLDecodingError) {
        switch sqlValue {
        case .int(let v): self = v != 0
        case .text("t"), .text("true"), .text("1"): self = true
        case .text("f"), .text("false"), .text("0"): self = false
        default: throw SQLDecodingError(.typeMismatch, column: column, found: sqlValue)
        }
    }
}

extension Array: SQLDecodable where Element == UInt8 {
    @inlinable
    public init(sqlValue: SQLValue, column: String) throws(SQLDecodingError) {
        guard case .blob(let b) = sqlValue else { throw SQLDecodingError(.typeMismatch, column: column, found: sqlValue) }
        self = b
    }
}

extension Optional: SQLDecodable where Wrapped: SQLDecodable {
    @inlinable
    public init(sqlValue: SQLValue, column: String) throws(SQLDecodingError) {
        if case .null = sqlValue {
            self = nil
        } else {
            self = try Wrapped(sqlValue: sqlValue, column: column)
        }
    }
}
