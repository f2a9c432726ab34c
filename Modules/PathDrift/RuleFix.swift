import EventModel
import Foundation
public import KVCConfig

/// Writes the rules back with the suggested paths applied, and nothing else changed.
public enum RuleFix {
    /// `{"rules":[…]}`: every KVC rule of the plan, in load order, each as its source document
    /// wrote it (members, order and values) except `viewPath` where `suggestions` (rule id → new
    /// pattern) has one. Rules read from a property list come out as JSON. One rule per line.
    public static func document(_ plan: TrackingPlan, suggestions: [String: String]) throws(DriftError) -> String {
        var sources: [String: JSONValue] = [:]
        var lines: [String] = []
        for rule in plan.rules {
            var object = rule.json.objectValue ?? JSONObject()
            let file = rule.location.file
            if !file.isEmpty {
                if sources[file] == nil { sources[file] = try source(file) }
                if let original = find(rule.location.keyPath, in: sources[file]!)?.objectValue { object = original }
            }
            if let path = suggestions[rule.id] { object["viewPath"] = .string(path) }
            lines.append("  " + JSONValue.object(object).jsonText)
        }
        guard !lines.isEmpty else { return "{\"rules\": []}\n" }
        return "{\"rules\": [\n" + lines.joined(separator: ",\n") + "\n]}\n"
    }

    static func source(_ file: String) throws(DriftError) -> JSONValue {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw DriftError(code: .unwritableFix, path: file, reason: "cannot be read again to copy its rules; was it moved?")
        }
        do throws(ConfigError) {
            return try ConfigLoader.document(data: [UInt8](data), file: file)
        } catch {
            throw DriftError(code: .unwritableFix, path: file, reason: "changed while drift ran: \(error)")
        }
    }

    /// The value at a document key path such as `rules[3]` (or `[3]`).
    static func find(_ keyPath: String, in document: JSONValue) -> JSONValue? {
        guard keyPath.hasSuffix("]"), let open = keyPath.lastIndex(of: "["),
            let i = Int(keyPath[keyPath.index(after: open)..<keyPath.index(before: keyPath.endIndex)])
        else { return nil }
        let container = String(keyPath[..<open])
        let array = container.isEmpty ? document : document[container]
        guard let items = array?.arrayValue, items.indices.contains(i) else { return nil }
        return items[i]
    }
}
