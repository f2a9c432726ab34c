/// The view marker that silences tracking (docs/privacy.md): a view named or styled
/// `autotrack-ignore`, and everything inside it, produces no events and is blanked in snapshots.
public enum TrackingIgnoreMarker {
    /// The name, CSS class (GTK) or accessibility identifier (the UIKit model) that marks a view.
    public static let name = "autotrack-ignore"
}

extension ViewNode {
    public var ignoresTracking: Bool { false }

    public var isInIgnoredView: Bool {
        for node in selfAndAncestors where node.ignoresTracking { return true }
        return false
    }
}

/// What a key may reveal of text the user types (docs/privacy.md).
public enum TypedText: Sendable, Hashable {
    /// Typed text (an entry's `text`, a text view's `buffer`): read only by a rule with `"readText": true`.
    case typed
    /// A password entry's: never read.
    case password
}

/// An object holding text the user types (a text field, a GTK editable or text view, a text
/// buffer): a key path step (KVCConfig) asks it before reading a key, and refuses the keys that
/// reveal the text unless its rule says `"readText": true`, and a password's always. The refusal
/// is a missed key, so the rule's `kvc_error` says which key and why.
public protocol TypedTextHolding {
    /// Whether the value of `key` reveals typed text; nil when it does not.
    func typedText(forKey key: String) -> TypedText?
}
