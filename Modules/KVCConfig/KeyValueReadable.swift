/// A type that answers keys itself, so a key path can read what reflection cannot see
/// (computed properties, values behind a lock, a facade over a model).
///
/// A key path step asks `value(forKey:)` before trying reflection; a numeric part is passed as its
/// text (`"0"`). Return nil when the key names nothing: the read then stops with a `KeyPathMiss`.
public protocol KeyValueReadable {
    /// The value for `key`, or nil when the key names nothing.
    func value(forKey key: String) -> Any?
}
