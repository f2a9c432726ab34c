import CGtk
import KVCConfig
public import ViewIdentity

/// Key paths and typed text (docs/privacy.md): a rule reads an editable's or text view's text
/// properties (`GtkPrivacy.typedTextProperties`), or a text buffer's, only when it says
/// `"readText": true`, and a password entry's never.
extension GtkWidgetNode: TypedTextHolding {
    public func typedText(forKey key: String) -> TypedText? {
        guard let widget, GtkPrivacy.holdsText(widget), GtkPrivacy.typedTextProperties.contains(key) else { return nil }
        return GtkPrivacy.isPassword(widget) ? .password : .typed
    }
}

extension GObjectValue: TypedTextHolding {
    public func typedText(forKey key: String) -> TypedText? {
        guard GtkPrivacy.holdsText(object), GtkPrivacy.typedTextProperties.contains(key) else { return nil }
        return .typed
    }
}

extension GtkWidgetNode {
    /// The widget's own `autotrack-ignore` name or CSS class.
    public var ignoresTracking: Bool { widget.map(GtkPrivacy.isIgnored) ?? false }

    /// Whether the widget or an ancestor is named or styled `autotrack-ignore`: one quark lookup
    /// while no widget of the process can carry the marker, else a walk up the widget tree.
    public var isInIgnoredView: Bool {
        guard let widget, GtkPrivacy.markerInUse else { return false }
        return GtkWidgetNode.selfAndAncestors(of: widget).contains { GtkPrivacy.isIgnored($0) }
    }
}
