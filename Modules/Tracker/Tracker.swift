/// Namespace for the Tracker module's shared constants.
public enum TrackerModule {
    /// The module's name, as products and logs show it.
    public static let name = "Tracker"
}
