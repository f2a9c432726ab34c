/// Namespace for the Transport module's shared constants.
public enum TransportModule {
    /// The module's name, as products and logs show it.
    public static let name = "Transport"
}
