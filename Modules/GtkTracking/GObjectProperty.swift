import CGtk
import EventModel
import KVCConfig

/// A GObject instance pointer, as signal parameters and GTK functions pass it.
public typealias GObjectPointer = UnsafeMutableRawPointer

/// Reading GObject properties, the GTK side of key-value coding (docs/gtk.md "Key paths").
enum GObjectProperty {
    /// What a property holds, as Swift values: `Bool`, `Int64`, `Double`, `String`, `JSONValue.null`
    /// for an unset string or object, a `GtkWidgetNode` for a widget, a `GObjectValue` for any other
    /// object; nil when the object has no readable property `name` or its type has no JSON form.
    static func read(_ object: GObjectPointer, _ name: String) -> Any? {
        withValue(object, name) { convert($0) } ?? nil
    }

    /// `body` with the value of the readable property `name`; nil when the object has none.
    private static func withValue<T>(_ object: GObjectPointer, _ name: String, _ body: (UnsafePointer<GValue>) -> T) -> T? {
        var value = GValue()
        guard cgtk_get_property(object, name, &value) != 0 else { return nil }
        defer { g_value_unset(&value) }
        return body(&value)
    }

    static func convert(_ value: UnsafePointer<GValue>) -> Any? {
        switch cgtk_value_kind(value) {
        case CGTK_VALUE_BOOLEAN: return g_value_get_boolean(value) != 0
        case CGTK_VALUE_SIGNED: return cgtk_value_signed(value)
        case CGTK_VALUE_UNSIGNED: return Int64(clamping: cgtk_value_unsigned(value))
        case CGTK_VALUE_DOUBLE: return cgtk_value_double(value)
        case CGTK_VALUE_ENUM: return Int64(g_value_get_enum(value))
        case CGTK_VALUE_FLAGS: return Int64(g_value_get_flags(value))
        case CGTK_VALUE_STRING:
            guard let s = g_value_get_string(value) else { return JSONValue.null }
            return String(cString: s)
        case CGTK_VALUE_OBJECT:
            guard let o = cgtk_value_pointer(value) else { return JSONValue.null }
            return wrap(o)
        default: return nil
        }
    }

    /// A widget as its node, any other object as a readable value.
    static func wrap(_ object: GObjectPointer) -> Any {
        if cgtk_is_widget(object) != 0 { return GtkWidgetNode.node(for: object) }
        return GObjectValue(object)
    }

    /// A string property, nil when absent, unset or not a string (read without going through `Any`:
    /// a widget's title is read so on every hooked click).
    static func string(_ object: GObjectPointer, _ name: String) -> String? {
        withValue(object, name) { value -> String? in
            guard cgtk_value_kind(value) == CGTK_VALUE_STRING, let s = g_value_get_string(value) else { return nil }
            return String(cString: s)
        } ?? nil
    }

    /// The GType name of an instance (`GtkButton`).
    static func typeName(_ object: GObjectPointer) -> String {
        String(cString: cgtk_type_name(object))
    }
}

/// A GObject that is not a widget (a list item's `item`, a drop-down's `selected-item`), read by key.
///
/// Holds a reference for as long as it lives, so a key path can read through it safely.
public final class GObjectValue: KeyValueReadable {
    let object: GObjectPointer

    init(_ object: GObjectPointer) {
        self.object = object
        g_object_ref(object)
    }

    deinit { g_object_unref(object) }

    public var typeName: String { GObjectProperty.typeName(object) }

    public func value(forKey key: String) -> Any? { GObjectProperty.read(object, key) }
}
