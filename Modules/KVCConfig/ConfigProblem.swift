/// One thing wrong with a configuration document: where, what was expected, what was found.
public struct ConfigProblem: Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem; stable names for tests and tools.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The file could not be read at all.
        case unreadableFile = "unreadable-file"
        /// Not well-formed JSON or XML property list.
        case syntax
        /// Well-formed, but none of the three document shapes.
        case unknownShape = "unknown-shape"
        /// A value of the wrong kind (an array where an object belongs, ...).
        case wrongType = "wrong-type"
        case missingField = "missing-field"
        case unknownField = "unknown-field"
        /// A required string that is empty.
        case emptyValue = "empty-value"
        case emptyEventID = "empty-event-id"
        case nonStringEventID = "non-string-event-id"
        /// An action name that is not selector-shaped (`onFavBtnPressed:`).
        case badSelector = "bad-selector"
        case badVersionRange = "bad-version-range"
        case badViewPath = "bad-view-path"
        case badKeyPath = "bad-key-path"
        case badViewEvent = "bad-view-event"
        /// Two places give different values for the same thing, or reuse a unique id.
        case conflict
        /// A tracked event names a method its class does not have (found when the plan is hooked).
        case unknownMethod = "unknown-method"
    }

    public var code: Code
    public var location: ConfigLocation
    public var expected: String
    public var found: String
    /// For conflicts: the other place.
    public var otherLocation: ConfigLocation?
    /// The class the problem concerns, when there is one (for the check's lines).
    public var className: String?
    /// The action the problem concerns, when there is one.
    public var action: String?

    public init(
        code: Code, location: ConfigLocation, expected: String, found: String, otherLocation: ConfigLocation? = nil,
        className: String? = nil, action: String? = nil
    ) {
        self.code = code
        self.location = location
        self.expected = expected
        self.found = found
        self.otherLocation = otherLocation
        self.className = className
        self.action = action
    }

    /// `file: key.path: expected X, found Y` (conflicts add `; the other is at file: key.path`).
    public var description: String {
        var s = "\(location): expected \(expected), found \(found)"
        if let otherLocation { s += "; the other is at \(otherLocation)" }
        return s
    }
}

/// Why configuration could not be loaded: every problem found, in document order, each with its place.
public struct ConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    public var problems: [ConfigProblem]

    public init(problems: [ConfigProblem]) { self.problems = problems }

    public init(_ problem: ConfigProblem) { self.problems = [problem] }

    /// One problem per line.
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
