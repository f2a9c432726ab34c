public import EventModel

/// A dot-separated key path into a view's data; a part that is a whole number ≥ 0 indexes an array.
public struct KVCKeyPath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a key path.
    public enum Part: Sendable, Hashable, CustomStringConvertible {
        case key(String)
        case index(Int)

        public var description: String {
            switch self {
            case .key(let k): return k
            case .index(let i): return String(i)
            }
        }
    }

    public var parts: [Part]
    public var text: String

    /// Parses `product.id`, `items.0.price`; empty parts are an error.
    public init(_ text: String) throws(KeyPathSyntaxError) {
        var parts: [Part] = []
        for p in text.split(separator: ".", omittingEmptySubsequences: false) {
            guard !p.isEmpty else { throw KeyPathSyntaxError(text: text, reason: "has an empty part") }
            if p.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let i = Int(p) {
                parts.append(.index(i))
            } else {
                parts.append(.key(String(p)))
            }
        }
        self.parts = parts
        self.text = text
    }

    public var description: String { text }
}

/// A key path that cannot be read as text.
public struct KeyPathSyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    public var text: String
    public var reason: String

    public var description: String { "key path \"\(text)\" \(reason)" }
}

/// The key of a key path that named nothing, and the key path up to it.
public struct KeyPathMiss: Error, Sendable, Hashable, CustomStringConvertible {
    /// The part that named nothing (`id` in `product.id`).
    public var missingKey: String
    /// The parts read before it.
    public var resolvedPrefix: String
    /// What was there instead, when known: `nil`, `a string`, `3 elements`, `a Product`.
    public var found: String

    public init(missingKey: String, resolvedPrefix: String, found: String = "") {
        self.missingKey = missingKey
        self.resolvedPrefix = resolvedPrefix
        self.found = found
    }

    public var description: String {
        var s = resolvedPrefix.isEmpty ? "no key \"\(missingKey)\"" : "no key \"\(missingKey)\" under \"\(resolvedPrefix)\""
        if !found.isEmpty { s += " (found \(found))" }
        return s
    }
}

extension KVCKeyPath {
    /// Reads the value at this key path from JSON data. Never throws past the caller's `Result`.
    public func read(from root: JSONValue) -> Result<JSONValue, KeyPathMiss> {
        var current = root
        var walked: [String] = []
        for part in parts {
            switch current.child(part) {
            case .success(let next): current = next
            case .failure(let found):
                return .failure(KeyPathMiss(missingKey: part.description, resolvedPrefix: walked.joined(separator: "."), found: found.found))
            }
            walked.append(part.description)
        }
        return .success(current)
    }
}

/// Why one step into JSON named nothing, as the text `KeyPathMiss.found` carries.
struct StepFailure: Error {
    var found: String
}

extension JSONValue {
    /// One step: a member of an object (a numeric part may name a member "0"), or an element of an array.
    func child(_ part: KVCKeyPath.Part) -> Result<JSONValue, StepFailure> {
        switch (part, self) {
        case (.key(let k), .object(let o)):
            if let v = o[k] { return .success(v) }
            return .failure(StepFailure(found: "an object without it"))
        case (.index(let i), .array(let a)):
            if i < a.count { return .success(a[i]) }
            return .failure(StepFailure(found: "an array of \(a.count)"))
        case (.index(let i), .object(let o)):
            if let v = o[String(i)] { return .success(v) }
            return .failure(StepFailure(found: "an object without it"))
        default:
            return .failure(StepFailure(found: kindDescription))
        }
    }
}
