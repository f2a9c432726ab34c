/// Namespace for the EventStore module's shared constants.
public enum EventStoreModule {
    /// The module's name, as products and logs show it.
    public static let name = "EventStore"
}
