/// Where a piece of configuration came from: the file and the key path inside it.
public struct ConfigLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var file: String
    /// Such as `HomeViewController.ControlEventIDs.onFavBtnPressed:` or `rules[3].viewPath`; empty for the
    /// document as a whole.
    public var keyPath: String
    /// 1-based line and column, known for syntax errors (where no key path exists yet).
    public var line: Int?
    public var column: Int?

    public init(file: String, keyPath: String, line: Int? = nil, column: Int? = nil) {
        self.file = file
        self.keyPath = keyPath
        self.line = line
        self.column = column
    }

    /// `file: keyPath`, `file:line:column: keyPath`, or just the file.
    public var description: String {
        var s = file
        if let line {
            s += ":\(line)"
            if let column { s += ":\(column)" }
        }
        if !keyPath.isEmpty { s += ": " + keyPath }
        return s
    }

    public static func < (a: ConfigLocation, b: ConfigLocation) -> Bool {
        if a.file != b.file { return a.file < b.file }
        if (a.line ?? 0) != (b.line ?? 0) { return (a.line ?? 0) < (b.line ?? 0) }
        if (a.column ?? 0) != (b.column ?? 0) { return (a.column ?? 0) < (b.column ?? 0) }
        return a.keyPath < b.keyPath
    }
}

/// A key path inside a configuration document, built while it is read: `rules[3].viewPath`.
struct DocumentPath: Sendable, Hashable, CustomStringConvertible {
    private(set) var text: String = ""

    static let root = DocumentPath()

    /// The member `key` of the object at this path.
    func key(_ key: String) -> DocumentPath {
        DocumentPath(text: text.isEmpty ? key : text + "." + key)
    }

    /// The element `i` of the array at this path.
    func index(_ i: Int) -> DocumentPath {
        DocumentPath(text: text + "[\(i)]")
    }

    var description: String { text }
}
