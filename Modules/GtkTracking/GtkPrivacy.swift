import CGtk

/// What a snapshot may show of a widget (docs/gtk.md "Snapshots"; privacy rules of docs/agent.md):
/// text the user types is never in the picture nor in `props`, password entries show nothing, and
/// a widget named or styled `autotrack-ignore` is blanked with everything inside it.
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
    static let ignoreMarker = "autotrack-ignore"

    /// `widget`'s own level (a child's is at least its parent's).
    static func of(_ widget: GObjectPointer) -> GtkPrivacy {
        if isIgnored(widget) || isPassword(widget) { return .hidden }
        if cgtk_is_editable(widget) != 0 || cgtk_is_text_view(widget) != 0 { return .typedText }
        return .open
    }

    static func isIgnored(_ widget: GObjectPointer) -> Bool {
        let w = widget.assumingMemoryBound(to: GtkWidget.self)
        if gtk_widget_has_css_class(w, ignoreMarker) != 0 { return true }
        guard let name = gtk_widget_get_name(w) else { return false }
        return String(cString: name) == ignoreMarker
    }

    /// A password entry, or an entry or text that hides its characters.
    static func isPassword(_ widget: GObjectPointer) -> Bool {
        if cgtk_is_password_entry(widget) != 0 { return true }
        guard cgtk_is_entry(widget) != 0 || cgtk_is_text(widget) != 0 else { return false }
        return GObjectProperty.read(widget, "visibility") as? Bool == false
    }

    /// Whether the snapshot paints over `widget`'s frame (when no ancestor's already covers it):
    /// the start of an ignored subtree, the widgets that draw typed text (`GtkText`, `GtkTextView`),
    /// and any other editable but the entries, spin buttons and search entries, whose text their
    /// `GtkText` child draws (so their icons and buttons stay visible).
    static func blanks(_ widget: GObjectPointer) -> Bool {
        if isIgnored(widget) || cgtk_is_text(widget) != 0 || cgtk_is_text_view(widget) != 0 { return true }
        guard cgtk_is_editable(widget) != 0 else { return false }
        return cgtk_is_entry(widget) == 0 && cgtk_is_spin_button(widget) == 0 && cgtk_is_search_entry(widget) == 0
            && cgtk_is_password_entry(widget) == 0
    }

    /// The frames a snapshot of `window` paints over, in its pixels: every shown widget that
    /// `blanks`, anywhere in the window (not only in the page snapshotted, since the picture is the
    /// whole window); what is inside one is covered with it.
    static func blankedFrames(in window: GObjectPointer, origin: (x: Float, y: Float)) -> [graphene_rect_t] {
        var out: [graphene_rect_t] = []
        var pending: [GObjectPointer] = [window]
        // Bounded by the number of widgets in the window.
        while let w = pending.popLast() {
            guard gtk_widget_get_mapped(w.assumingMemoryBound(to: GtkWidget.self)) != 0 else { continue }
            if blanks(w) {
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

    /// Properties of a widget holding typed text that tell the text or its length.
    static let typedTextProperties: Set<String> = [
        "text", "text-length", "cursor-position", "selection-bound", "scroll-offset", "buffer", "attributes",
    ]
}
