/// Why drift could not run: trees or configuration that cannot be read. Names the file and says how to fix it.
public struct DriftError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// A path that is neither a readable file nor a directory.
        case unreadablePath
        /// A directory with no `.json` file in it.
        case noTreeFiles
        /// A file that is not a view tree (docs/viewpath.md §1).
        case badTree
        /// A rules document that cannot be written back (`--fix`).
        case unwritableFix
    }

    public var code: Code
    public var path: String
    /// What is wrong and how to fix it.
    public var reason: String

    public init(code: Code, path: String, reason: String) {
        self.code = code
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}
