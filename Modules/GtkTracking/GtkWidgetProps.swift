import CGtk
import EventModel

/// A widget's `props` in a snapshot's tree (docs/gtk.md "Snapshots"): every readable property with
/// a scalar value, by the key path a rule would use (`label`, `active`, `value`), and one step into
/// objects that are not widgets (`selected-item.string`, `adjustment.upper`; a list row's
/// `item.…`), so a key path can be picked instead of typed.
enum GtkWidgetProps {
    static func props(_ widget: GObjectPointer, privacy: GtkPrivacy) -> JSONObject {
        var out = JSONObject()
        guard privacy != .hidden else { return out }
        let typed = privacy == .typedText
        add(widget, prefix: "", expand: !typed, skipping: typed ? GtkPrivacy.typedTextProperties : [], into: &out)
        if !typed, let item = GtkListItems.listItem(ofRow: widget), let model = GObjectProperty.item.read(item) {
            add(model.object, prefix: "item.", expand: false, skipping: [], into: &out)
        }
        return out
    }

    private static func add(
        _ object: GObjectPointer, prefix: String, expand: Bool, skipping: Set<String>, into out: inout JSONObject
    ) {
        var count: guint = 0
        guard let names = cgtk_readable_property_names(object, &count) else { return }
        defer { g_free(names) }
        var keys: [String] = []
        for i in 0..<Int(count) {
            if let n = names[i] { keys.append(String(cString: n)) }
        }
        for key in keys.sorted() where !skipping.contains(key) {
            switch AnyGObjectProperty(key).read(object) {
            case let b as Bool: out[prefix + key] = .bool(b)
            case let i as Int64: out[prefix + key] = .int(i)
            case let i as Int: out[prefix + key] = .int(Int64(i))  // gint64 is a C long: Swift's Int
            case let d as Double where d.isFinite: out[prefix + key] = .double(d)
            case let s as String: out[prefix + key] = .string(s)
            case let o as GObjectValue where expand && !GtkPrivacy.holdsText(o.object):
                add(o.object, prefix: prefix + key + ".", expand: false, skipping: [], into: &out)
            default: break  // unset, a widget (its own node), or no JSON form
            }
        }
    }
}
