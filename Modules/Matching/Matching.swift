/// Namespace for the Matching module's shared constants.
public enum MatchingModule {
    /// The module's name, as products and logs show it.
    public static let name = "Matching"
}
