/// Namespace for the Hooks module's shared constants.
public enum HooksModule {
    /// The module's name, as products and logs show it.
    public static let name = "Hooks"
}
