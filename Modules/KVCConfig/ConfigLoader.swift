public import EventModel
import Foundation

/// What reading configuration gave: everything valid, and every problem found on the way.
public struct ConfigReading: Sendable, Hashable {
    /// The entries that were valid (an entry with a problem is left out).
    public var plan: TrackingPlan
    /// In the order found: per file, in document order; conflicts where the second place was read.
    public var problems: [ConfigProblem]

    public init(plan: TrackingPlan = TrackingPlan(), problems: [ConfigProblem] = []) {
        self.plan = plan
        self.problems = problems
    }
}

/// Loads configuration documents (JSON or XML plist, told apart by content) into a tracking plan.
public enum ConfigLoader {
    /// The syntax of a document, judged from its first significant bytes.
    public enum Format: String, Sendable, Hashable {
        case json
        case plist
    }

    /// Judges the format by content: `<` starts an XML property list, `{` or `[` JSON. Nil for anything else.
    public static func format(of data: [UInt8]) -> Format? {
        var i = data.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while i < data.count, data[i] == 0x20 || data[i] == 0x09 || data[i] == 0x0A || data[i] == 0x0D { i += 1 }
        guard i < data.count else { return nil }
        switch data[i] {
        case UInt8(ascii: "<"): return .plist
        case UInt8(ascii: "{"), UInt8(ascii: "["): return .json
        default: return nil
        }
    }

    /// Parses a document's syntax (either format) into a JSON value; dictionaries keep their order.
    public static func document(data: [UInt8], file: String) throws(ConfigError) -> JSONValue {
        try document(data: data, file: file) { _ in }
    }

    /// Parses like `document(data:file:)`, reporting each JSON key repeated within one object as
    /// a conflict naming both places (the parser would keep the last silently; in configuration a
    /// repeat is two entries for one thing).
    static func document(
        data: [UInt8], file: String, duplicateKeys: (ConfigProblem) -> Void
    ) throws(ConfigError) -> JSONValue {
        switch format(of: data) {
        case .plist:
            return try PlistReader.parse(data, file: file)
        case .json:
            do throws(JSONParseError) {
                // A byte-order mark is not JSON, but editors write one.
                let bom = data.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
                return try JSONValue.parse(data.dropFirst(bom)) { duplicate in
                    duplicateKeys(duplicateKeyProblem(duplicate, data: data, bom: bom, file: file))
                }
            } catch {
                throw ConfigError(
                    ConfigProblem(
                        code: .syntax, location: ConfigLocation(file: file, keyPath: "", line: error.line, column: error.column),
                        expected: "well-formed JSON", found: error.reason))
            }
        case nil:
            let found: String
            if data.starts(with: Array("bplist".utf8)) {
                found = "a binary property list (convert it with `plutil -convert xml1 FILE`)"
            } else if data.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) {
                found = "an empty file"
            } else {
                let head = String(decoding: data.prefix(32), as: UTF8.self)
                found = "text starting \"\(head)\""
            }
            throw ConfigError(
                ConfigProblem(
                    code: .syntax, location: ConfigLocation(file: file, keyPath: "", line: 1, column: 1),
                    expected: "a JSON document or an XML property list", found: found))
        }
    }

    /// Reads a parsed document of any shape, collecting every problem rather than stopping at the first.
    public static func read(json: JSONValue, file: String) -> ConfigReading {
        var reader = DocumentReader(file: file, builder: PlanBuilder())
        reader.read(json)
        return ConfigReading(plan: reader.builder.plan, problems: reader.builder.problems)
    }

    /// Reads a document's bytes, collecting every problem; a syntax error is the only problem reported then.
    public static func read(data: [UInt8], file: String) -> ConfigReading {
        var builder = PlanBuilder()
        read(data: data, file: file, into: &builder)
        return ConfigReading(plan: builder.plan, problems: builder.problems)
    }

    /// Parses and reads one document into `builder`; JSON keys repeated in one object are conflicts.
    static func read(data: [UInt8], file: String, into builder: inout PlanBuilder) {
        do throws(ConfigError) {
            var duplicates: [ConfigProblem] = []
            let json = try document(data: data, file: file) { duplicates.append($0) }
            builder.problems += duplicates
            var reader = DocumentReader(file: file, builder: builder)
            reader.read(json)
            builder = reader.builder
        } catch {
            builder.problems += error.problems
        }
    }

    /// Parses one document strictly: any problem is an error listing them all.
    public static func parse(data: [UInt8], file: String) throws(ConfigError) -> TrackingPlan {
        let r = read(data: data, file: file)
        guard r.problems.isEmpty else { throw ConfigError(problems: r.problems) }
        return r.plan
    }

    /// Parses one document from any bytes (Foundation's `Data`, a slice).
    public static func parse(data: some Collection<UInt8>, file: String) throws(ConfigError) -> TrackingPlan {
        try parse(data: Array(data), file: file)
    }

    /// Parses one document given as text.
    public static func parse(text: String, file: String) throws(ConfigError) -> TrackingPlan {
        try parse(data: Array(text.utf8), file: file)
    }

    /// Reads KVC rules as published on the wire (`PUBLISH {"rules":[...]}`): a rules document or a bare array.
    public static func rules(json: JSONValue, file: String) throws(ConfigError) -> [KVCRule] {
        var reader = DocumentReader(file: file, builder: PlanBuilder())
        if case .array = json {
            reader.readRuleArray(json, at: .root)
        } else if case .object(let o) = json, o["rules"] != nil, DocumentShape.detect(json) == .rules {
            reader.readRules(o)
            if o["ignore"] != nil {
                // Ignore patterns are the app's own (its configuration files), not a published rule set's.
                reader.problem(
                    .unknownField, DocumentPath.root.key("ignore"),
                    expected: "a rule set to hold only \"rules\" (\"ignore\" patterns go in the app's configuration files)",
                    found: "the member \"ignore\"")
            }
        } else {
            reader.problem(.unknownShape, .root, expected: "a KVC rules document {\"rules\": [...]} or an array of rules", found: DocumentReader.describe(json))
        }
        guard reader.builder.problems.isEmpty else { throw ConfigError(problems: reader.builder.problems) }
        return reader.builder.plan.rules
    }

    /// The bytes of a file, or an `unreadable-file` problem.
    static func contents(of file: String) -> Result<[UInt8], ConfigError> {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDir) else {
            return .failure(ConfigError(ConfigProblem(code: .unreadableFile, location: ConfigLocation(file: file, keyPath: ""), expected: "a readable file", found: "no such file")))
        }
        guard !isDir.boolValue, let data = FileManager.default.contents(atPath: file) else {
            let found = isDir.boolValue ? "a directory" : "a file that cannot be read (check its permissions)"
            return .failure(ConfigError(ConfigProblem(code: .unreadableFile, location: ConfigLocation(file: file, keyPath: ""), expected: "a readable file", found: found)))
        }
        return .success([UInt8](data))
    }
}

extension TrackingPlan {
    /// Reads and merges every file, collecting every problem of every file (nothing thrown).
    public static func read(files: [String]) -> ConfigReading {
        var builder = PlanBuilder()
        for file in files {
            switch ConfigLoader.contents(of: file) {
            case .failure(let e):
                builder.problems += e.problems
            case .success(let data):
                ConfigLoader.read(data: data, file: file, into: &builder)
            }
        }
        return ConfigReading(plan: builder.plan, problems: builder.problems)
    }

    /// Loads and merges every file; any problem in any of them (including a conflict between two files,
    /// which names both places) is an error listing them all.
    public static func load(files: [String]) throws(ConfigError) -> TrackingPlan {
        let r = read(files: files)
        guard r.problems.isEmpty else { throw ConfigError(problems: r.problems) }
        return r.plan
    }

    /// This plan with `other` merged in; conflicting entries are an error naming both places.
    public func merging(_ other: TrackingPlan) throws(ConfigError) -> TrackingPlan {
        var b = PlanBuilder()
        b.add(self)
        b.problems = []  // Self was already checked when it was built.
        b.add(other)
        guard b.problems.isEmpty else { throw ConfigError(problems: b.problems) }
        return b.plan
    }

    /// Merges `other` into this plan; on a conflict the plan is left unchanged.
    public mutating func merge(_ other: TrackingPlan) throws(ConfigError) {
        self = try merging(other)
    }
}

extension ConfigLoader {
    /// A repeated key as a conflict: the repeat's place, and the first one's.
    static func duplicateKeyProblem(_ d: JSONDuplicateKey, data: [UInt8], bom: Int, file: String) -> ConfigProblem {
        var path = DocumentPath.root
        for step in d.path {
            switch step {
            case .key(let k): path = path.key(k)
            case .index(let i): path = path.index(i)
            }
        }
        let keyPath = path.key(d.key)
        func location(_ offset: Int) -> ConfigLocation {
            let (line, column) = TextPosition.lineColumn(data, offset + bom)
            return ConfigLocation(file: file, keyPath: keyPath.text, line: line, column: column)
        }
        return ConfigProblem(
            code: .conflict, location: location(d.offset), expected: "each key once in an object",
            found: "\"\(d.key)\" again", otherLocation: location(d.firstOffset))
    }
}
