import CGtk
import KVCConfig
import ViewIdentity

/// What a snapshot may show of a widget (docs/gtk.md "Snapshots"; privacy rules of docs/agent.md):
/// text the user types is never in the picture nor in `props`, password entries show nothing, and
/// a widget named or styled `autotrack-ignore`, or covered by the plan's `ignore` patterns, is
/// blanked with everything inside it (docs/privacy.md).
enum GtkPrivacy: Int, Comparable {
    /// Shown as it is, every readable property in `props`.
    case open
    /// Holds typed text (an editable, a text view, or inside one): its text is blanked in the
    /// picture and its text properties are left out of `props`.
    case typedText
    /// A password entry, or `autotrack-ignore` and what is inside it: no `props`, no `title`.
    case hidden

    static func < (a: GtkPrivacy, b: GtkPrivacy) -> Bool { a.rawValue < b.rawValue }

    /// The name and CSS class that hide a widget and what it holds.
    static let ignoreMarker = TrackingIgnoreMarker.name

    /// `widget`'s own level (a child's is at least its parent's); `patterns` are the plan's `ignore`.
    static func of(_ widget: GObjectPointer, ignoring patterns: [IgnorePattern] = []) -> GtkPrivacy {
        if isIgnored(widget, patterns) || isPassword(widget) { return .hidden }
        if holdsText(widget) { return .typedText }
        return .open
    }

    /// Whether a widget is marked `autotrack-ignore` (its name or a CSS class).
    static func isIgnored(_ widget: GObjectPointer) -> Bool {
        let w = widget.assumingMemoryBound(to: GtkWidget.self)
        if gtk_widget_has_css_class(w, ignoreMarker) != 0 { return true }
        guard let name = gtk_widget_get_name(w) else { return false }
        return strcmp(name, ignoreMarker) == 0
    }

    /// Marked, or covered by one of `patterns` (computing its path only when there are some).
    static func isIgnored(_ widget: GObjectPointer, _ patterns: [IgnorePattern]) -> Bool {
        isIgnored(widget) || (!patterns.isEmpty && patterns.cover(GtkWidgetNode.node(for: widget).viewPath))
    }

    /// Whether any widget can carry the marker: GTK interns a widget's name and CSS classes as
    /// quarks, so while no quark of the marker exists (`g_quark_try_string` creates none) none does.
    static var markerInUse: Bool { g_quark_try_string(ignoreMarker) != 0 }

    /// A widget or object whose properties hold typed text: an editable, a text view, a text or entry buffer.
    static func holdsText(_ object: GObjectPointer) -> Bool {
        cgtk_is_editable(object) != 0 || cgtk_is_text_view(object) != 0 || cgtk_is_entry_buffer(object) != 0
            || cgtk_is_text_buffer(object) != 0
    }

    /// A password entry, or an entry or text that hides its characters.
    static func isPassword(_ widget: GObjectPointer) -> Bool {
        if cgtk_is_password_entry(widget) != 0 { return true }
        guard cgtk_is_entry(widget) != 0 || cgtk_is_text(widget) != 0 else { return false }
        return GObjectProperty.visibility.read(widget) == false
    }

    /// Whether the snapshot paints over `widget`'s frame (when no ancestor's already covers it):
    /// the start of an ignored subtree, the widgets that draw typed text (`GtkText`, `GtkTextView`),
    /// and any other editable but the entries, spin buttons and search entries, whose text their
    /// `GtkText` child draws (so their icons and buttons stay visible).
    static func blanks(_ widget: GObjectPointer, ignoring patterns: [IgnorePattern] = []) -> Bool {
        if isIgnored(widget, patterns) || cgtk_is_text(widget) != 0 || cgtk_is_text_view(widget) != 0 { return true }
        guard cgtk_is_editable(widget) != 0 else { return false }
        return cgtk_is_entry(widget) == 0 && cgtk_is_spin_button(widget) == 0 && cgtk_is_search_entry(widget) == 0
            && cgtk_is_password_entry(widget) == 0
    }

    /// The frames a snapshot of `window` paints over, in its pixels: every shown widget that
    /// `blanks`, anywhere in the window (not only in the page snapshotted, since the picture is the
    /// whole window); what is inside one is covered with it.
    static func blankedFrames(
        in window: GObjectPointer, origin: (x: Float, y: Float), ignoring patterns: [IgnorePattern] = []
    ) -> [graphene_rect_t] {
        var out: [graphene_rect_t] = []
        var pending: [GObjectPointer] = [window]
        // Bounded by the number of widgets in the window.
        while let w = pending.popLast() {
            guard gtk_widget_get_mapped(w.assumingMemoryBound(to: GtkWidget.self)) != 0 else { continue }
            if blanks(w, ignoring: patterns) {
                if let frame = GtkTreeCapture.frame(of: w, in: window, origin: origin) { out.append(frame) }
                continue
            }
            var child = gtk_widget_get_first_child(w.assumingMemoryBound(to: GtkWidget.self))
            while let c = child {
                pending.append(UnsafeMutableRawPointer(c))
                child = gtk_widget_get_next_sibling(c)
            }
        }
        return out
    }

    /// Properties of a widget or buffer holding typed text that tell the text or its length.
    static let typedTextProperties: Set<String> = [
        "text", "text-length", "length", "cursor-position", "selection-bound", "scroll-offset", "buffer", "attributes",
    ]
}
