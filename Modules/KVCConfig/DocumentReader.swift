import EventModel
import ViewIdentity

/// Reads one parsed document of any shape into a `PlanBuilder`, recording every problem with its place.
struct DocumentReader {
    let file: String
    var builder: PlanBuilder

    init(file: String, builder: PlanBuilder) {
        self.file = file
        self.builder = builder
    }

    func location(_ path: DocumentPath) -> ConfigLocation { ConfigLocation(file: file, keyPath: path.text) }

    mutating func problem(
        _ code: ConfigProblem.Code, _ path: DocumentPath, expected: String, found: String, className: String? = nil,
        action: String? = nil
    ) {
        builder.problems.append(
            ConfigProblem(
                code: code, location: location(path), expected: expected, found: found, className: className, action: action))
    }

    /// Reads `root` as whichever shape it has.
    mutating func read(_ root: JSONValue) {
        guard let shape = DocumentShape.detect(root), case .object(let o) = root else {
            var found = root.kindDescription
            if case .object(let o) = root {
                let keys = o.keys.prefix(5).map { "\"\($0)\"" }.joined(separator: ", ")
                found = "an object with the keys \(keys)\(o.count > 5 ? ", ..." : "")"
            }
            problem(.unknownShape, .root, expected: DocumentShape.expectedText, found: found)
            return
        }
        switch shape {
        case .eventTable: readEventTable(o)
        case .labelled: readLabelled(o)
        case .rules: readRules(o)
        }
    }

    // MARK: helpers

    static func describe(_ v: JSONValue) -> String {
        switch v {
        case .string(let s): return s.isEmpty ? "an empty string" : "\"\(s)\""
        case .int, .double, .bool: return "\(v.kindDescription) (\(v.jsonText))"
        default: return v.kindDescription
        }
    }

    /// Reports every member of `o` not in `allowed`.
    mutating func rejectUnknown(_ o: JSONObject, at path: DocumentPath, allowed: [String], what: String) {
        for m in o where !allowed.contains(m.key) {
            problem(
                .unknownField, path.key(m.key),
                expected: "\(what) to hold only \(allowed.map { "\"\($0)\"" }.joined(separator: ", "))",
                found: "the member \"\(m.key)\"")
        }
    }

    /// A required, non-empty string member.
    mutating func string(_ o: JSONObject, _ key: String, at path: DocumentPath, what: String, allowEmpty: Bool = false) -> String? {
        guard let v = o[key] else {
            problem(.missingField, path, expected: "a field \"\(key)\" (\(what))", found: "none")
            return nil
        }
        guard case .string(let s) = v else {
            problem(.wrongType, path.key(key), expected: "a string (\(what))", found: Self.describe(v))
            return nil
        }
        if !allowEmpty, s.trimmingSpaces.isEmpty {
            problem(.emptyValue, path.key(key), expected: "a non-empty string (\(what))", found: Self.describe(v))
            return nil
        }
        return s
    }

    /// An event id: a non-empty string; empty and non-string ids are reported under their own codes.
    mutating func eventID(_ v: JSONValue, at path: DocumentPath, className: String, action: String?) -> String? {
        guard case .string(let s) = v else {
            problem(.nonStringEventID, path, expected: "a string event id", found: Self.describe(v), className: className, action: action)
            return nil
        }
        guard !s.trimmingSpaces.isEmpty else {
            problem(.emptyEventID, path, expected: "a non-empty event id", found: Self.describe(v), className: className, action: action)
            return nil
        }
        return s
    }

    /// True for selector-style action names: `viewDidLoad`, `onFavBtnPressed:`, `tap:forEvent:`.
    static func isSelector(_ s: String) -> Bool {
        guard let first = s.first, first.isLetter || first == "_" else { return false }
        guard s.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" }) else { return false }
        return !s.contains(":") || s.hasSuffix(":")
    }

    // MARK: §1 event table

    mutating func readEventTable(_ root: JSONObject) {
        for m in root {
            let className = m.key
            let cpath = DocumentPath.root.key(className)
            if className.trimmingSpaces.isEmpty {
                problem(.emptyValue, cpath, expected: "a class name as the key", found: "an empty key")
                continue
            }
            guard case .object(let entry) = m.value else {
                problem(
                    .wrongType, cpath, expected: "an object with \"PageEventIDs\" and/or \"ControlEventIDs\"",
                    found: Self.describe(m.value), className: className)
                continue
            }
            builder.addClass(className, location: location(cpath))
            if entry.isEmpty {
                problem(
                    .missingField, cpath, expected: "\"PageEventIDs\" and/or \"ControlEventIDs\"", found: "an empty object",
                    className: className)
            }
            for f in entry {
                let fpath = cpath.key(f.key)
                switch f.key {
                case "PageEventIDs":
                    guard case .object(let pages) = f.value else {
                        problem(.wrongType, fpath, expected: "an object {\"Enter\": id, \"Leave\": id}", found: Self.describe(f.value), className: className)
                        continue
                    }
                    for p in pages {
                        let ppath = fpath.key(p.key)
                        guard p.key == "Enter" || p.key == "Leave" else {
                            problem(.unknownField, ppath, expected: "\"Enter\" or \"Leave\"", found: "the member \"\(p.key)\"", className: className)
                            continue
                        }
                        if let id = eventID(p.value, at: ppath, className: className, action: nil) {
                            builder.addPage(className: className, which: p.key, id: id, location: location(ppath))
                        }
                    }
                case "ControlEventIDs":
                    guard case .object(let controls) = f.value else {
                        problem(.wrongType, fpath, expected: "an object {\"action:\": id, ...}", found: Self.describe(f.value), className: className)
                        continue
                    }
                    for c in controls {
                        let cp = fpath.key(c.key)
                        guard Self.isSelector(c.key) else {
                            problem(
                                .badSelector, cp, expected: "an action name such as onFavBtnPressed: or viewDidLoad",
                                found: "\"\(c.key)\"", className: className)
                            continue
                        }
                        if let id = eventID(c.value, at: cp, className: className, action: c.key) {
                            builder.addControl(className: className, action: c.key, id: id, location: location(cp))
                        }
                    }
                default:
                    problem(
                        .unknownField, fpath, expected: "\"PageEventIDs\" or \"ControlEventIDs\"", found: "the member \"\(f.key)\"",
                        className: className)
                }
            }
        }
    }

    // MARK: §2 labelled screens and events

    mutating func readLabelled(_ root: JSONObject) {
        for (key, isEvent) in [("trackedScreens", false), ("trackedEvents", true)] {
            guard let v = root[key] else { continue }
            let lpath = DocumentPath.root.key(key)
            guard case .array(let items) = v else {
                problem(.wrongType, lpath, expected: "an array of objects", found: Self.describe(v))
                continue
            }
            for (i, item) in items.enumerated() {
                let ipath = lpath.index(i)
                guard case .object(let o) = item else {
                    problem(
                        .wrongType, ipath,
                        expected: isEvent ? "an object {\"class\", \"selector\", \"label\"}" : "an object {\"class\", \"label\"}",
                        found: Self.describe(item))
                    continue
                }
                rejectUnknown(
                    o, at: ipath, allowed: isEvent ? ["class", "selector", "label"] : ["class", "label"],
                    what: isEvent ? "a tracked event" : "a tracked screen")
                let className = string(o, "class", at: ipath, what: "the class name")
                var selector: String?
                if isEvent, let s = string(o, "selector", at: ipath, what: "the action name, such as shareButtonPressed:") {
                    if Self.isSelector(s) {
                        selector = s
                    } else {
                        problem(
                            .badSelector, ipath.key("selector"), expected: "an action name such as shareButtonPressed:",
                            found: "\"\(s)\"", className: className)
                    }
                }
                let label = string(o, "label", at: ipath, what: "the label")
                guard let className, let label else { continue }
                if isEvent {
                    guard let selector else { continue }
                    builder.addEvent(LabelledEvent(className: className, selector: selector, label: label, location: location(ipath)))
                } else {
                    builder.addScreen(LabelledScreen(className: className, label: label, location: location(ipath)))
                }
            }
        }
        rejectUnknown(root, at: .root, allowed: ["trackedScreens", "trackedEvents"], what: "a labelled document")
    }

    // MARK: §3 KVC rules

    static let ruleFields = [
        "id", "name", "appKey", "appVersion", "viewEvent", "viewPath", "alsoViewPaths", "keyPath", "keyName", "content", "readText",
    ]

    mutating func readRules(_ root: JSONObject) {
        if let v = root["rules"] { readRuleArray(v, at: DocumentPath.root.key("rules")) }
        if let v = root["ignore"] { readIgnore(v, at: DocumentPath.root.key("ignore")) }
        rejectUnknown(root, at: .root, allowed: ["rules", "ignore"], what: "a KVC rules document")
    }

    /// `"ignore": ["pattern", ...]`: view path patterns (docs/viewpath.md §3) whose views are silenced.
    mutating func readIgnore(_ v: JSONValue, at lpath: DocumentPath) {
        guard case .array(let items) = v else {
            problem(.wrongType, lpath, expected: "an array of view path patterns", found: Self.describe(v))
            return
        }
        for (i, item) in items.enumerated() {
            let ipath = lpath.index(i)
            guard case .string(let text) = item else {
                problem(.wrongType, ipath, expected: "a string (a view path pattern)", found: Self.describe(item))
                continue
            }
            do throws(ViewPathParseError) {
                builder.addIgnore(IgnorePattern(try PathPattern(text), location: location(ipath)))
            } catch {
                problem(.badViewPath, ipath, expected: "a view path pattern (docs/viewpath.md §3)", found: error.description)
            }
        }
    }

    mutating func readRuleArray(_ v: JSONValue, at lpath: DocumentPath) {
        guard case .array(let items) = v else {
            problem(.wrongType, lpath, expected: "an array of rule objects", found: Self.describe(v))
            return
        }
        for (i, item) in items.enumerated() {
            if let rule = readRule(item, at: lpath.index(i)) {
                builder.addRule(rule, idLocation: location(lpath.index(i).key("id")))
            }
        }
    }

    mutating func readRule(_ item: JSONValue, at rpath: DocumentPath) -> KVCRule? {
        guard case .object(let o) = item else {
            problem(.wrongType, rpath, expected: "a rule object", found: Self.describe(item))
            return nil
        }
        rejectUnknown(o, at: rpath, allowed: Self.ruleFields, what: "a rule")
        let id = string(o, "id", at: rpath, what: "the rule id")
        let appKey = string(o, "appKey", at: rpath, what: "the app key")
        let range = readVersionRange(o, at: rpath)
        let event = readViewEvent(o, at: rpath)
        let pattern = readViewPattern(o, at: rpath)
        let also = readAlsoViewPaths(o, at: rpath)
        guard let read = readKeyPath(o, at: rpath), let extras = readRuleExtras(o, at: rpath) else { return nil }
        guard let id, let appKey, let range, let event, let pattern, let also, read.valid else { return nil }
        return KVCRule(
            id: id, name: extras.name, appKey: appKey, appVersion: range, viewEvent: event, viewPath: pattern,
            alsoViewPaths: also.filter { $0 != pattern }, keyPath: read.keyPath,
            keyName: read.keyName, content: extras.content, readText: extras.readText, location: location(rpath))
    }

    mutating func readVersionRange(_ o: JSONObject, at rpath: DocumentPath) -> VersionRange? {
        guard let t = string(o, "appVersion", at: rpath, what: "a version range such as * or >=1.2.0 <2.0.0") else { return nil }
        do throws(VersionRangeError) {
            return try VersionRange(t)
        } catch {
            problem(
                .badVersionRange, rpath.key("appVersion"),
                expected: "a version range: *, an exact version such as 1.2.0, or comparators (>=, >, <=, <, =) joined by spaces",
                found: error.description)
            return nil
        }
    }

    mutating func readViewEvent(_ o: JSONObject, at rpath: DocumentPath) -> ViewEvent? {
        guard let t = string(o, "viewEvent", at: rpath, what: "the interaction") else { return nil }
        guard let event = ViewEvent(rawValue: t) else {
            problem(
                .badViewEvent, rpath.key("viewEvent"),
                expected: "one of " + ViewEvent.allCases.map(\.rawValue).joined(separator: ", "), found: "\"\(t)\"")
            return nil
        }
        return event
    }

    mutating func readViewPattern(_ o: JSONObject, at rpath: DocumentPath) -> PathPattern? {
        guard let t = string(o, "viewPath", at: rpath, what: "a view path pattern") else { return nil }
        do throws(ViewPathParseError) {
            return try PathPattern(t)
        } catch {
            problem(.badViewPath, rpath.key("viewPath"), expected: "a view path pattern (docs/viewpath.md §3)", found: error.description)
            return nil
        }
    }

    /// The optional `alsoViewPaths`: an array of view path patterns, each once (a repeat is dropped);
    /// nil when it is malformed (its problem recorded).
    mutating func readAlsoViewPaths(_ o: JSONObject, at rpath: DocumentPath) -> [PathPattern]? {
        guard let v = o["alsoViewPaths"] else { return [] }
        let at = rpath.key("alsoViewPaths")
        guard case .array(let items) = v else {
            problem(.wrongType, at, expected: "an array of view path patterns (docs/viewpath.md §3)", found: Self.describe(v))
            return nil
        }
        var out: [PathPattern] = []
        for (i, item) in items.enumerated() {
            guard case .string(let t) = item else {
                problem(.wrongType, at.index(i), expected: "a view path pattern (docs/viewpath.md §3)", found: Self.describe(item))
                return nil
            }
            do throws(ViewPathParseError) {
                let p = try PathPattern(t)
                if !out.contains(p) { out.append(p) }
            } catch {
                problem(.badViewPath, at.index(i), expected: "a view path pattern (docs/viewpath.md §3)", found: error.description)
                return nil
            }
        }
        return out
    }

    /// The key path and the name its value is reported under: both or neither (a rule without
    /// them, a studio definition, names events and reads nothing). Nil when only one is given;
    /// `valid` is false when a given one is malformed (its problem recorded).
    mutating func readKeyPath(_ o: JSONObject, at rpath: DocumentPath) -> (keyPath: KVCKeyPath?, keyName: String?, valid: Bool)? {
        let keyPathGiven = o["keyPath"] != nil, keyNameGiven = o["keyName"] != nil
        if keyPathGiven != keyNameGiven {
            let missing = keyPathGiven ? "keyName" : "keyPath"
            let what = keyPathGiven ? "the property name the value is reported under" : "the key path whose value it names"
            problem(
                .missingField, rpath, expected: "a field \"\(missing)\" (\(what)): keyPath and keyName go together, or both are left out",
                found: "none")
            return nil
        }
        var keyPath: KVCKeyPath?
        if keyPathGiven, let t = string(o, "keyPath", at: rpath, what: "a dot-separated key path such as product.id") {
            do throws(KeyPathSyntaxError) {
                keyPath = try KVCKeyPath(t)
            } catch {
                problem(.badKeyPath, rpath.key("keyPath"), expected: "a dot-separated key path such as product.id", found: error.description)
            }
        }
        let keyName = keyNameGiven ? string(o, "keyName", at: rpath, what: "the property name the value is reported under") : nil
        return (keyPath, keyName, !keyPathGiven || (keyPath != nil && keyName != nil))
    }

    /// The optional `name`, `content` and `readText`; nil when one is of the wrong type.
    mutating func readRuleExtras(_ o: JSONObject, at rpath: DocumentPath) -> (name: String?, content: String?, readText: Bool)? {
        var name: String?
        if o["name"] != nil {
            name = string(o, "name", at: rpath, what: "the rule's display name")
            if name == nil { return nil }
        }
        var content: String?
        if let c = o["content"] {
            guard case .string(let s) = c else {
                problem(.wrongType, rpath.key("content"), expected: "a string (the title to match)", found: Self.describe(c))
                return nil
            }
            content = s
        }
        var readText = false
        if let r = o["readText"] {
            guard case .bool(let b) = r else {
                problem(.wrongType, rpath.key("readText"), expected: "true or false (may the key path read typed text)", found: Self.describe(r))
                return nil
            }
            readText = b
        }
        return (name, content, readText)
    }
}
