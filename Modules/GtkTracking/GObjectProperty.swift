import CGtk
import EventModel
public import KVCConfig

/// A GObject instance pointer, as signal parameters and GTK functions pass it.
public typealias GObjectPointer = UnsafeMutableRawPointer

/// A GObject property the hooks read, typed: its name and the Swift type of its values
/// (`GObjectProperty.label: String`, `.active: Bool`, `.value: Double`). The property's declared
/// GType is checked once, when it is looked up on the object, before its value is read: an object
/// without it, or whose property of that name holds another type, reads as nil.
struct GObjectProperty<Value: GObjectPropertyValue>: CustomStringConvertible {
    let name: String

    init(_ name: String) { self.name = name }

    /// The property's value on `object`; nil when the object has no readable property of that
    /// name and type, or (strings, objects) when it is unset.
    func read(_ object: GObjectPointer) -> Value? {
        var value = GValue()
        guard cgtk_get_property(object, name, Value.kind, &value) != 0 else { return nil }
        defer { g_value_unset(&value) }
        return Value.value(in: &value)
    }

    var description: String { "\(name): \(Value.self)" }
}

extension GObjectProperty where Value == String {
    /// A button's, label's, check button's… visible label: a node's title, read on every hooked click.
    static var label: Self { Self("label") }
    /// A `GtkStringObject`'s string (a drop-down's selected item).
    static var string: Self { Self("string") }
}

extension GObjectProperty where Value == Bool {
    /// A toggle or check button's state.
    static var active: Self { Self("active") }
    /// Whether an entry or text shows its characters (false: a password).
    static var visibility: Self { Self("visibility") }
}

extension GObjectProperty where Value == Double {
    /// A spin button's value (a range keeps its value in its adjustment).
    static var value: Self { Self("value") }
}

extension GObjectProperty where Value == UInt32 {
    /// A drop-down's selected position (`GTK_INVALID_LIST_POSITION` for none).
    static var selected: Self { Self("selected") }
}

extension GObjectProperty where Value == GtkWidgetNode {
    /// A stack's visible child.
    static var visibleChild: Self { Self("visible-child") }
}

extension GObjectProperty where Value == Bool {
    /// Whether a window is the one with the keyboard focus.
    static var isActive: Self { Self("is-active") }
}

extension GObjectProperty where Value == GObjectValue {
    /// A `GtkListItem`'s model object (not a widget).
    static var item: Self { Self("item") }
}

/// A Swift type a typed property's values have: the kind of GValue it is read from.
protocol GObjectPropertyValue {
    static var kind: CGtkValueKind { get }
    /// The value a GValue of `kind` holds; nil for an unset string or object.
    static func value(in gValue: UnsafePointer<GValue>) -> Self?
}

extension Bool: GObjectPropertyValue {
    static var kind: CGtkValueKind { CGTK_VALUE_BOOLEAN }
    static func value(in gValue: UnsafePointer<GValue>) -> Bool? { g_value_get_boolean(gValue) != 0 }
}

extension UInt32: GObjectPropertyValue {
    static var kind: CGtkValueKind { CGTK_VALUE_UNSIGNED }
    /// Nil for a wider value that does not fit.
    static func value(in gValue: UnsafePointer<GValue>) -> UInt32? { UInt32(exactly: cgtk_value_unsigned(gValue)) }
}

extension Double: GObjectPropertyValue {
    static var kind: CGtkValueKind { CGTK_VALUE_DOUBLE }
    static func value(in gValue: UnsafePointer<GValue>) -> Double? { cgtk_value_double(gValue) }
}

extension String: GObjectPropertyValue {
    static var kind: CGtkValueKind { CGTK_VALUE_STRING }
    static func value(in gValue: UnsafePointer<GValue>) -> String? { g_value_get_string(gValue).map { String(cString: $0) } }
}

extension GtkWidgetNode: GObjectPropertyValue {
    static var kind: CGtkValueKind { CGTK_VALUE_OBJECT }
    /// A widget's node; nil for any other object.
    static func value(in gValue: UnsafePointer<GValue>) -> GtkWidgetNode? {
        guard let o = cgtk_value_pointer(gValue), cgtk_is_widget(o) != 0 else { return nil }
        return node(for: o)
    }
}

extension GObjectValue: GObjectPropertyValue {
    static var kind: CGtkValueKind { CGTK_VALUE_OBJECT }
    /// Any object but a widget (a widget is a node).
    static func value(in gValue: UnsafePointer<GValue>) -> GObjectValue? {
        guard let o = cgtk_value_pointer(gValue), cgtk_is_widget(o) == 0 else { return nil }
        return GObjectValue(o)
    }
}

/// A GObject property by a name known only at run time, its value whatever its type: what key
/// paths read, the GTK side of key-value coding (docs/gtk.md "Key paths"), and what a
/// snapshot's `props` list.
struct AnyGObjectProperty {
    let name: String

    init(_ name: String) { self.name = name }

    /// What the property holds, as Swift values: `Bool`, `Int` (signed), `Int64` (unsigned, enums,
    /// flags), `Double`, `String`, `JSONValue.null` for an unset string or object, a
    /// `GtkWidgetNode` for a widget, a `GObjectValue` for any other object; nil when the object
    /// has no readable property `name` or its type has no JSON form.
    func read(_ object: GObjectPointer) -> Any? {
        var value = GValue()
        guard cgtk_get_property(object, name, CGTK_VALUE_ANY, &value) != 0 else { return nil }
        defer { g_value_unset(&value) }
        return AnyGObjectProperty.convert(&value)
    }

    /// Each kind read directly, not through the typed values' `value(in:)` and their optionals:
    /// this runs for each step of a key path on every click.
    private static func convert(_ value: UnsafePointer<GValue>) -> Any? {
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
            return cgtk_is_widget(o) != 0 ? GtkWidgetNode.node(for: o) : GObjectValue(o)
        default: return nil
        }
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

    public var typeName: String { GObjectValue.typeName(of: object) }

    public func value(forKey key: String) -> Any? { AnyGObjectProperty(key).read(object) }

    /// The GType name of an instance (`GtkButton`).
    static func typeName(of object: GObjectPointer) -> String {
        String(cString: cgtk_type_name(object))
    }
}
