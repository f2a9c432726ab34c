public import ViewIdentity

/// A text field: text the user types. Typing sends no event (as a GTK entry's does not); a key
/// path reads `text` only for a rule that says `"readText": true`, and a secure field's never
/// (docs/privacy.md).
open class UITextField: UIControl, TypedTextHolding {
    public var text: String?
    public var placeholder: String?
    /// A password field.
    public var isSecureTextEntry: Bool

    public init(text: String? = nil, placeholder: String? = nil, isSecureTextEntry: Bool = false) {
        self.text = text
        self.placeholder = placeholder
        self.isSecureTextEntry = isSecureTextEntry
        super.init()
    }

    /// What the user's typing does: the field holds `text`.
    open func type(_ text: String) { self.text = text }

    public func typedText(forKey key: String) -> TypedText? {
        key == "text" ? (isSecureTextEntry ? .password : .typed) : nil
    }
}
