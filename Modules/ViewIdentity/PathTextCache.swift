import Synchronization

/// The canonical text and viewId of the paths seen last, so a repeated interaction on the same
/// element neither writes its path again nor hashes it (docs/performance.md "AppKit hooks").
///
/// A path is found by equality of its elements (names by their bytes, and indexes), so another
/// path never gets a remembered text. At most `capacity` paths are kept; a new one replaces the
/// one kept longest.
public final class PathTextCache: Sendable {
    /// What a path is written as on an event.
    public struct Texts: Sendable {
        /// `ViewPath.canonical`.
        public let canonical: String
        /// `ViewPath.viewID`'s hexadecimal text.
        public let viewID: String
    }

    private struct Slots {
        var entries: [(path: ViewPath, texts: Texts)] = []
        /// The slot a new path takes once every slot is used.
        var next = 0
    }

    public let capacity: Int
    private let slots = Mutex(Slots())

    public init(capacity: Int = 16) {
        precondition(capacity > 0, "a path text cache keeps at least one path")
        self.capacity = capacity
    }

    /// How many paths are remembered now.
    public var count: Int { slots.withLock { $0.entries.count } }

    /// The texts of `path`, remembered or written now.
    public func texts(of path: ViewPath) -> Texts {
        if let known = slots.withLock({ s in s.entries.first { PathTextCache.same($0.path, path) }?.texts }) { return known }
        let canonical = path.canonical
        let texts = Texts(canonical: canonical, viewID: ViewID(canonical: canonical).hex)
        slots.withLock { s in
            if s.entries.count < capacity {
                s.entries.append((path, texts))
            } else {
                s.entries[s.next] = (path, texts)
                s.next = (s.next + 1) % capacity
            }
        }
        return texts
    }

    /// Path equality from the leaf up: paths of one screen share their first elements.
    private static func same(_ a: ViewPath, _ b: ViewPath) -> Bool {
        a.elements.withUnsafeBufferPointer { x in
            b.elements.withUnsafeBufferPointer { y in
                guard x.count == y.count else { return false }
                // One storage (a path reused from the last interaction): equal.
                if x.baseAddress == y.baseAddress { return true }
                for k in x.indices.reversed() where x[k] != y[k] { return false }
                return true
            }
        }
    }
}
