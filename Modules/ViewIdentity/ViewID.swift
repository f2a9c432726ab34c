/// The viewId: lowercase hex MD5 of a path's canonical form (viewpath.md §2 rule 7).
public struct ViewID: Sendable, Hashable, CustomStringConvertible {
    /// 32 lowercase hexadecimal characters.
    public let hex: String

    public init(canonical: String) {
        hex = MD5.hexDigest(of: Array(canonical.utf8))
    }

    public var description: String { hex }
}
