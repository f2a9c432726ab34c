public import EventModel
public import KVCConfig
public import ViewIdentity

/// Where a matched rule's key path reads its value: a view's JSON props, or a live object by reflection.
public protocol KeyPathReading {
    /// The value at `keyPath`, or which key named nothing. Never traps on a missing key.
    func read(_ keyPath: KVCKeyPath) -> Result<JSONValue, KeyPathMiss>
    /// The same for a rule that says whether it may read typed text (`"readText"`, docs/privacy.md).
    /// Default: `read(keyPath)` (readers of stored props, where typed text was never written).
    func read(_ keyPath: KVCKeyPath, readText: Bool) -> Result<JSONValue, KeyPathMiss>
}

extension KeyPathReading {
    public func read(_ keyPath: KVCKeyPath, readText: Bool) -> Result<JSONValue, KeyPathMiss> { read(keyPath) }
}

/// Reads key paths from a view's `props` (docs/viewpath.md §1); a view without props misses on its first key.
public struct JSONPropsReader: KeyPathReading, Sendable {
    public var props: JSONValue?

    public init(props: JSONValue?) { self.props = props }

    public func read(_ keyPath: KVCKeyPath) -> Result<JSONValue, KeyPathMiss> {
        keyPath.read(from: props ?? .object(JSONObject()))
    }
}

/// Adapts any `(KVCKeyPath) -> Result<JSONValue, KeyPathMiss>` function.
public struct KeyPathReaderFunction: KeyPathReading {
    public let body: (KVCKeyPath) -> Result<JSONValue, KeyPathMiss>

    public init(_ body: @escaping (KVCKeyPath) -> Result<JSONValue, KeyPathMiss>) { self.body = body }

    public func read(_ keyPath: KVCKeyPath) -> Result<JSONValue, KeyPathMiss> { body(keyPath) }
}

/// Reads key paths from any Swift value by reflection (stored properties, `KeyValueReadable`); the
/// default reader of the tracker and `match`, rooted at the interaction's view node, which steps up
/// by `superview`/`parent` and, in a JSON view tree, answers from its `props`.
public struct ReflectionReader: KeyPathReading {
    public let root: Any
    /// The root when it is known to be a view node, which saves the read a cast per step.
    private let node: (any ViewNode)?

    public init(root: Any) {
        self.root = root
        node = nil
    }

    public init(node: any ViewNode) {
        root = node
        self.node = node
    }

    public func read(_ keyPath: KVCKeyPath) -> Result<JSONValue, KeyPathMiss> {
        read(keyPath, readText: false)
    }

    /// Typed text is refused unless `readText`; a password's always (KVCConfig's `TypedTextHolding`).
    public func read(_ keyPath: KVCKeyPath, readText: Bool) -> Result<JSONValue, KeyPathMiss> {
        if let node { return keyPath.read(reflecting: node, readText: readText) }
        return keyPath.read(reflecting: root, readText: readText)
    }
}
