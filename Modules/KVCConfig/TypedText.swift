import ViewIdentity

extension TypedText {
    /// What a key path step refused for typed text reports as found (docs/privacy.md).
    var refusal: String {
        switch self {
        case .typed: return "text the user typed, which a rule reads only with \"readText\": true"
        case .password: return "a password entry's text, which is never read"
        }
    }
}
