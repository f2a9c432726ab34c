public import EventModel

/// Per class, the action names the code implements (docs/config.md §4): what the check compares configuration to.
public struct Inventory: Sendable, Hashable {
    /// Class name → selector-style action names (`onFavBtnPressed:`, `viewDidLoad`).
    public var classes: [String: Set<String>]

    public init(classes: [String: Set<String>] = [:]) { self.classes = classes }

    /// Adds a class (with no actions yet) or more actions to one.
    public mutating func add(className: String, actions: some Sequence<String> = [String]()) {
        classes[className, default: []].formUnion(actions)
    }

    /// `{"Class": ["action:", ...]}` with classes and actions sorted.
    public var json: JSONValue {
        .object(JSONObject(classes.keys.sorted().map { ($0, .array(classes[$0]!.sorted().map { .string($0) })) }))
    }

    /// The JSON text, one class per line (so that diffs show which class changed), sorted, ending in a newline.
    public var jsonText: String {
        let names = classes.keys.sorted()
        guard !names.isEmpty else { return "{}\n" }
        var lines: [String] = []
        for name in names {
            var key: [UInt8] = []
            JSONValue.writeString(name, to: &key)
            let actions = JSONValue.array(classes[name]!.sorted().map { .string($0) }).jsonText
            lines.append("  " + String(decoding: key, as: UTF8.self) + ": " + actions)
        }
        return "{\n" + lines.joined(separator: ",\n") + "\n}\n"
    }

    /// Reads an inventory document (JSON or XML plist), reporting every problem with its place.
    public static func parse(data: [UInt8], file: String) throws(ConfigError) -> Inventory {
        let root = try ConfigLoader.document(data: data, file: file)
        guard case .object(let o) = root else {
            throw ConfigError(
                ConfigProblem(
                    code: .unknownShape, location: ConfigLocation(file: file, keyPath: ""),
                    expected: "an inventory {\"Class\": [\"action:\", ...]}", found: DocumentReader.describe(root)))
        }
        var inventory = Inventory()
        var problems: [ConfigProblem] = []
        for m in o {
            let path = DocumentPath.root.key(m.key)
            guard case .array(let items) = m.value else {
                problems.append(
                    ConfigProblem(
                        code: .wrongType, location: ConfigLocation(file: file, keyPath: path.text),
                        expected: "an array of action names", found: DocumentReader.describe(m.value)))
                continue
            }
            inventory.add(className: m.key)
            for (i, item) in items.enumerated() {
                guard case .string(let s) = item, DocumentReader.isSelector(s) else {
                    problems.append(
                        ConfigProblem(
                            code: .badSelector, location: ConfigLocation(file: file, keyPath: path.index(i).text),
                            expected: "an action name such as onFavBtnPressed: or viewDidLoad", found: DocumentReader.describe(item)))
                    continue
                }
                inventory.classes[m.key]!.insert(s)
            }
        }
        guard problems.isEmpty else { throw ConfigError(problems: problems) }
        return inventory
    }

    /// Reads an inventory file.
    public static func load(file: String) throws(ConfigError) -> Inventory {
        try parse(data: ConfigLoader.contents(of: file).get(), file: file)
    }
}
