/// A failed PostgreSQL operation: what failed, the server's SQLSTATE when it sent one, libpq's
/// message, and the statement or step that was running.
public struct PostgresError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure; may grow.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The server could not be reached, or the connection broke (server stopped, restarted, network).
        public static let connection = Code(rawValue: "connection")
        /// The server refused a statement (SQLSTATE says why).
        public static let statement = Code(rawValue: "statement")
        /// The database's schema is newer than this collector knows, or not Autotrack's.
        public static let schema = Code(rawValue: "schema")
        /// The store was closed, or the `--db` URI is malformed.
        public static let usage = Code(rawValue: "usage")

        public var description: String { rawValue }
    }

    public var code: Code
    public var message: String
    /// The five-character SQLSTATE the server sent (`23505`, `40P01`, `57P01`...), nil when none.
    public var sqlState: String?
    /// The statement or step that failed (`connect to /tmp/pg:5432`, `INSERT INTO events ...`).
    public var statement: String

    public init(code: Code, message: String, sqlState: String? = nil, statement: String = "") {
        self.code = code
        self.message = message
        self.sqlState = sqlState
        self.statement = statement
    }

    /// True when the failure says nothing about the data: retrying on a fresh connection may succeed
    /// (connection lost, server shutting down or starting, deadlock or serialization failure).
    public var isTransient: Bool {
        if code == .connection { return true }
        guard let s = sqlState else { return false }
        // 08: connection exception; 57P0x: admin/crash shutdown, cannot connect now; 40001/40P01: retry.
        return s.hasPrefix("08") || s.hasPrefix("57P") || s == "40001" || s == "40P01" || s == "53300"
    }

    public var description: String {
        var s = "PostgreSQL \(code) error"
        if let sqlState { s += " \(sqlState)" }
        s += ": \(message)"
        if !statement.isEmpty { s += " — while running: \(statement.prefix(120))" }
        if code == .connection || sqlState?.hasPrefix("57P") == true || sqlState?.hasPrefix("08") == true {
            s += ". Check that PostgreSQL runs and the --db URI (host, port, socket directory, user) is right."
        } else if sqlState == "28P01" || sqlState == "28000" {
            s += ". Check the user and password in the --db URI and pg_hba.conf."
        } else if sqlState == "3D000" {
            s += ". Create the database first (createdb NAME) or name an existing one in the --db URI."
        } else if sqlState == "42501" {
            s += ". The user needs CREATE on the schema and INSERT/SELECT/DELETE on Autotrack's tables."
        }
        return s
    }
}
