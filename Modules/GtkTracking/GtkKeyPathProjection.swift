import EventModel
import KVCConfig
import Synchronization

/// A widget's `props` for the tracker: the values the configured key paths read from the live
/// widget, at the moment they are asked for (docs/gtk.md "Key paths").
///
/// The tracker reads rules' key paths from a node's `props`; a GTK widget has no such bag, so
/// `props` is built on demand from exactly the key paths in use, each read through
/// `GtkWidgetNode.value(forKey:)` (GObject properties, `parent` steps). A key that names nothing
/// is left out, so the tracker reports the same miss it would for a live read.
public enum GtkKeyPathProjection {
    private static let keyPaths = Mutex<[KVCKeyPath]>([])

    /// The key paths `props` holds values for; the tracking plan's, set when the plan is installed.
    public static func use(_ paths: [KVCKeyPath]) {
        var seen = Set<String>()
        let unique = paths.filter { seen.insert($0.text).inserted }
        keyPaths.withLock { $0 = unique }
    }

    /// The configured key paths read from `root`, as one JSON object.
    static func project(_ root: some KeyValueReadable) -> JSONValue {
        let paths = keyPaths.withLock { $0 }
        var object = JSONValue.object(JSONObject())
        for path in paths {
            guard case .success(let value) = path.value(reflecting: root) else { continue }
            object.insert(json(value), at: path.parts.map(\.description))
        }
        return object
    }

    /// A read value as JSON: scalars as they are, a widget or other object as its type name.
    static func json(_ value: Any) -> JSONValue {
        switch value {
        case let v as JSONValue: return v
        case let b as Bool: return .bool(b)
        case let i as Int64: return .int(i)
        case let d as Double: return .double(d)
        case let s as String: return .string(s)
        case let n as GtkWidgetNode: return .string(n.typeName)
        case let o as GObjectValue: return .string(o.typeName)
        default: return JSONValue(reflecting: value)
        }
    }
}

extension JSONValue {
    /// Sets `value` at the object keys `keys`, creating objects on the way; a non-object on the way is replaced.
    mutating func insert(_ value: JSONValue, at keys: [String]) {
        guard let first = keys.first else {
            self = value
            return
        }
        var members: JSONObject
        if case .object(let o) = self { members = o } else { members = JSONObject() }
        var child = members[first] ?? .object(JSONObject())
        if keys.count == 1 {
            child = value
        } else {
            if case .object = child {} else { child = .object(JSONObject()) }
            child.insert(value, at: Array(keys.dropFirst()))
        }
        members[first] = child
        self = .object(members)
    }
}
