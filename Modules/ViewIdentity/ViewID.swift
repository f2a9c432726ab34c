/// The viewId: lowercase hex MD5 of a path's canonical form (docs/viewpath.md §2 rule 7).
public struct ViewID: Sendable, Hashable, CustomStringConvertible {
    /// 32 lowercase hexadecimal characters.
    public let hex: String

    /// The viewId of the canonical form `canonical` (its UTF-8 bytes, no terminator).
    public init(canonical: String) {
        hex = MD5.hexDigest(utf8: canonical)
    }

    /// The viewId of `path`.
    public init(path: ViewPath) {
        self.init(canonical: path.canonical)
    }

    /// Reads a viewId written by another tool; nil unless it is 32 lowercase hex characters.
    public init?(hex text: String) {
        guard text.utf8.count == 32,
            text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { return nil }
        hex = text
    }

    public var description: String { hex }
}
