/// Namespace for the Collector module's shared constants.
public enum CollectorModule {
    /// The module's name, as products and logs show it.
    public static let name = "Collector"
}
