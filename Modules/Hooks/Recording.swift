public import EventModel
public import Foundation
public import ViewIdentity

/// A recorded app session: the screens shown (view trees) and the interactions on them, in order
/// (docs/recording-format.md). `replay` runs it through the same pipeline as a live app.
public struct Recording {
    /// The version of the format this reader understands; `format` in the document, when present, must equal it.
    public static let formatName = "autotrack-session/1"

    public var appKey: String
    public var appVersion: String
    /// The session id for the events; nil lets the player choose a fresh one.
    public var session: String?
    /// Milliseconds since the Unix epoch of `t == 0`; nil means "when the replay starts".
    public var startTs: Int64?
    public var steps: [RecordingStep]

    public init(appKey: String, appVersion: String, session: String? = nil, startTs: Int64? = nil, steps: [RecordingStep]) {
        self.appKey = appKey
        self.appVersion = appVersion
        self.session = session
        self.startTs = startTs
        self.steps = steps
    }
}

/// One step of a recording.
public enum RecordingStep {
    /// A new screen: the view tree that later steps name nodes of (by `id`).
    case show(ViewTree)
    /// An interaction on a node of the tree shown last.
    case interact(RecordedInteraction)
}

/// What a person did in a recording, and on which node.
public struct RecordedInteraction {
    /// The kinds of interaction a recording holds; the raw value is the step's key.
    public enum Kind: String, Sendable, CaseIterable {
        /// A control sent an action to a target (ButtonClick).
        case tap
        /// A list cell was selected (ListItemClick).
        case select
        /// A tap gesture recogniser fired (ViewTap).
        case gesture
        /// A control's value changed (ValueChanged).
        case change
        /// A scroll view scrolled (Scroll).
        case scroll
        /// A controller appeared (PageEnter).
        case enter
        /// A controller disappeared (PageLeave).
        case leave
    }

    public var kind: Kind
    /// The node's `id` in its tree.
    public var nodeID: String
    /// The node acted on: the sender, the cell, the gesture's view, the scroll view or the controller.
    public var node: TreeNode
    /// The tree the node belongs to (kept so the node's ancestors stay alive).
    public var tree: ViewTree
    /// The action name (`onFavBtnPressed:`) for `tap`, `gesture` and `change`.
    public var action: String?
    /// The target's runtime type name; defaults to the type of the node's controller.
    public var target: String?
    /// The new value of a `change` or the offset of a `scroll`, a JSON scalar.
    public var value: JSONValue?
    /// The selected segment of a `change` on a segmented control.
    public var selectedIndex: Int?
    /// Milliseconds since the start of the session.
    public var t: Int64
    /// Where the step is in the document, `steps[3]`, for messages.
    public var location: String
}

/// A recording that breaks docs/recording-format.md; names the step and field at fault.
public struct RecordingFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file, or `the session` when read from memory.
    public var file: String
    /// `steps[3].tap`, `appKey`, or empty for the document as a whole.
    public var location: String
    public var reason: String

    public init(file: String, location: String, reason: String) {
        self.file = file
        self.location = location
        self.reason = reason
    }

    public var description: String {
        location.isEmpty ? "\(file): \(reason)" : "\(file): \(location) \(reason)"
    }
}

extension Recording {
    /// Reads a recording from a file.
    public init(contentsOf url: URL) throws(RecordingFormatError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw RecordingFormatError(
                file: url.path, location: "", reason: "cannot be read (\(error.localizedDescription)); check the path")
        }
        try self.init(json: data, file: url.path)
    }

    /// Reads a recording from JSON text; `file` names it in errors.
    public init(json bytes: some Collection<UInt8>, file: String = "the session") throws(RecordingFormatError) {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes)
        } catch {
            throw RecordingFormatError(file: file, location: "", reason: "is not valid JSON: \(error)")
        }
        try self.init(json: value, file: file)
    }

    /// Reads a recording from a parsed JSON value.
    public init(json value: JSONValue, file: String = "the session") throws(RecordingFormatError) {
        var reader = RecordingReader(file: file)
        let doc = try reader.document(value)
        let appKey = try reader.requiredString("appKey", in: doc)
        let appVersion = try reader.requiredString("appVersion", in: doc)
        let session = try reader.session(in: doc)
        let startTs = try reader.startTs(in: doc)
        let steps = try reader.steps(in: doc)
        self.init(appKey: appKey, appVersion: appVersion, session: session, startTs: startTs, steps: steps)
    }
}

/// `Recording.init(json:)` in named steps: the document's fields, then each step (a tree to show,
/// or an interaction with a node of the tree shown last), every failure naming where it is.
private struct RecordingReader {
    let file: String
    /// The tree the last `tree` step showed; interactions name its nodes.
    var current: ViewTree?
    /// The time of the step before (`t` never goes back).
    var lastT: Int64 = 0

    init(file: String) { self.file = file }

    func fail(_ location: String, _ reason: String) -> RecordingFormatError {
        RecordingFormatError(file: file, location: location, reason: reason)
    }

    /// The top-level object, of a format this reader understands.
    func document(_ value: JSONValue) throws(RecordingFormatError) -> JSONObject {
        guard case .object(let doc) = value else {
            throw fail("", "must be a JSON object with \"appKey\", \"appVersion\" and \"steps\", found \(value.kindDescription)")
        }
        if let f = doc["format"], f != .string(Recording.formatName) {
            throw fail("format", "is \(f.jsonText); this reader understands \"\(Recording.formatName)\"")
        }
        return doc
    }

    func requiredString(_ key: String, in doc: JSONObject) throws(RecordingFormatError) -> String {
        guard let v = doc[key] else { throw fail(key, "is required (a non-empty string)") }
        guard case .string(let s) = v, !s.isEmpty else {
            throw fail(key, "must be a non-empty string, found \(v.kindDescription)")
        }
        return s
    }

    func session(in doc: JSONObject) throws(RecordingFormatError) -> String? {
        guard let v = doc["session"], v != .null else { return nil }
        guard case .string(let s) = v, (1...100).contains(s.utf8.count) else {
            throw fail("session", "must be a string of 1 to 100 bytes (event ids are built from it)")
        }
        return s
    }

    func startTs(in doc: JSONObject) throws(RecordingFormatError) -> Int64? {
        guard let v = doc["startTs"], v != .null else { return nil }
        guard case .int(let i) = v, i >= 0 else {
            throw fail("startTs", "must be an integer ≥ 0 (milliseconds since the Unix epoch), found \(v.jsonText)")
        }
        return i
    }

    mutating func steps(in doc: JSONObject) throws(RecordingFormatError) -> [RecordingStep] {
        guard let stepsValue = doc["steps"] else { throw fail("steps", "is required (an array of steps)") }
        guard case .array(let rawSteps) = stepsValue else {
            throw fail("steps", "must be an array, found \(stepsValue.kindDescription)")
        }
        var steps: [RecordingStep] = []
        for (i, raw) in rawSteps.enumerated() { steps.append(try step(raw, here: "steps[\(i)]")) }
        return steps
    }

    /// One step: exactly one step key, `tree` or an interaction kind.
    mutating func step(_ raw: JSONValue, here: String) throws(RecordingFormatError) -> RecordingStep {
        guard case .object(let step) = raw else { throw fail(here, "must be an object, found \(raw.kindDescription)") }
        let verbs = ["tree"] + RecordedInteraction.Kind.allCases.map(\.rawValue)
        let present = verbs.filter { step[$0] != nil }
        guard present.count == 1, let verb = present.first else {
            throw fail(
                here,
                present.isEmpty
                    ? "has none of the step keys \(verbs.joined(separator: ", ")); give exactly one"
                    : "has \(present.joined(separator: " and ")); give exactly one step key per step")
        }
        if verb == "tree" {
            do {
                let tree = try ViewTree(json: step["tree"]!)
                current = tree
                return .show(tree)
            } catch {
                throw fail("\(here).tree", "is not a valid view tree: \(error)")
            }
        }
        return .interact(try interaction(RecordedInteraction.Kind(rawValue: verb)!, step, here: here))
    }

    /// An interaction step: its node in the current tree, of the role the kind needs, and its details.
    mutating func interaction(
        _ kind: RecordedInteraction.Kind, _ step: JSONObject, here: String
    ) throws(RecordingFormatError) -> RecordedInteraction {
        let verb = kind.rawValue
        guard case .string(let nodeID) = step[verb]! else {
            throw fail("\(here).\(verb)", "must be the id of a node (a string), found \(step[verb]!.kindDescription)")
        }
        guard let tree = current else {
            throw fail(here, "acts on node \"\(nodeID)\" before any tree is shown; add a {\"tree\": …} step first")
        }
        guard let node = tree.node(id: nodeID) else {
            let known = tree.identified.compactMap(\.id).prefix(12).joined(separator: ", ")
            throw fail("\(here).\(verb)", "names node \"\(nodeID)\", which the current tree lacks (its ids: \(known))")
        }
        switch kind {
        case .enter, .leave:
            guard node.role == .controller else {
                throw fail("\(here).\(verb)", "names node \"\(nodeID)\", a \(node.role.rawValue); page steps need a controller")
            }
        case .select:
            guard node.role == .cell else {
                throw fail("\(here).\(verb)", "names node \"\(nodeID)\", a \(node.role.rawValue); select needs a cell")
            }
        default: break
        }
        let action = try optionalString("action", in: step, here: here)
        let target = try optionalString("target", in: step, here: here)
        if kind == .tap || kind == .change, action == nil {
            throw fail(here, "is a \(verb) without \"action\" (the action name, such as \"onFavBtnPressed:\")")
        }
        return RecordedInteraction(
            kind: kind, nodeID: nodeID, node: node, tree: tree, action: action, target: target, value: try value(in: step, here: here),
            selectedIndex: try selectedIndex(in: step, here: here), t: try time(in: step, here: here), location: here)
    }

    func optionalString(_ key: String, in step: JSONObject, here: String) throws(RecordingFormatError) -> String? {
        guard let v = step[key], v != .null else { return nil }
        guard case .string(let s) = v, !s.isEmpty else {
            throw fail("\(here).\(key)", "must be a non-empty string, found \(v.kindDescription)")
        }
        return s
    }

    func value(in step: JSONObject, here: String) throws(RecordingFormatError) -> JSONValue? {
        guard let v = step["value"] else { return nil }
        guard v.isScalar else { throw fail("\(here).value", "must be a JSON scalar, found \(v.kindDescription)") }
        return v
    }

    func selectedIndex(in step: JSONObject, here: String) throws(RecordingFormatError) -> Int? {
        guard let v = step["selectedIndex"] else { return nil }
        guard case .int(let i) = v, i >= 0, i <= Int64(Int32.max) else {
            throw fail("\(here).selectedIndex", "must be an integer ≥ 0, found \(v.jsonText)")
        }
        return Int(i)
    }

    /// The step's `t`, or the step before's when absent; never earlier than it.
    mutating func time(in step: JSONObject, here: String) throws(RecordingFormatError) -> Int64 {
        if let v = step["t"] {
            guard case .int(let ms) = v, ms >= 0 else {
                throw fail("\(here).t", "must be an integer ≥ 0 (milliseconds since the session start), found \(v.jsonText)")
            }
            guard ms >= lastT else {
                throw fail("\(here).t", "is \(ms), earlier than the step before (\(lastT)); times never go back")
            }
            lastT = ms
        }
        return lastT
    }
}
