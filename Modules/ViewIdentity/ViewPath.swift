/// The index of one path element: a position among same-named siblings, or a cell's `s:r`.
public enum PathIndex: Sendable, Hashable, CustomStringConvertible {
    case position(Int)
    case cell(CellIndexPath)

    public var description: String {
        switch self {
        case .position(let i): return String(i)
        case .cell(let ip): return ip.description
        }
    }
}

/// A stable identity for a view: the elements from its controller (or topmost ancestor) down to it.
public struct ViewPath: Sendable, Hashable, CustomStringConvertible {
    /// One step of a path: a name and an index.
    public struct Element: Sendable, Hashable {
        public var name: String
        public var index: PathIndex

        public init(name: String, index: PathIndex) {
            self.name = name
            self.index = index
        }

        /// Names compare by their UTF-8 bytes, as the viewId does: two spellings of "é" are two names.
        public static func == (lhs: Element, rhs: Element) -> Bool {
            lhs.index == rhs.index && sameBytes(lhs.name, rhs.name)
        }
    }

    public var elements: [Element]

    public init(elements: [Element]) {
        self.elements = elements
    }

    /// Names joined with `-`, `&`, then indexes joined with `-` (docs/viewpath.md §2 rule 5).
    public var canonical: String {
        // Written as bytes into a string of the exact length: far cheaper than 2n `String.append`s.
        var length = max(2 * elements.count - 1, 1)  // the '-'s between names and indexes, and the '&'
        for e in elements { length += e.name.utf8.count + e.index.printedLength }
        return String(unsafeUninitializedCapacity: length) { buffer in
            var w = ByteWriter(buffer)
            for (i, e) in elements.enumerated() {
                if i > 0 { w.byte(UInt8(ascii: "-")) }
                w.string(e.name)
            }
            w.byte(UInt8(ascii: "&"))
            for (i, e) in elements.enumerated() {
                if i > 0 { w.byte(UInt8(ascii: "-")) }
                w.index(e.index)
            }
            return w.offset
        }
    }

    /// `name[index]` joined with `/` (docs/viewpath.md §2 rule 6).
    public var xpath: String {
        var length = 0
        for e in elements { length += e.name.utf8.count + e.index.printedLength + 3 }
        return String(unsafeUninitializedCapacity: max(length - 1, 0)) { buffer in
            var w = ByteWriter(buffer)
            for (i, e) in elements.enumerated() {
                if i > 0 { w.byte(UInt8(ascii: "/")) }
                w.string(e.name)
                w.byte(UInt8(ascii: "["))
                w.index(e.index)
                w.byte(UInt8(ascii: "]"))
            }
            return w.offset
        }
    }

    /// MD5 of the canonical form.
    public var viewID: ViewID { ViewID(canonical: canonical) }

    public var description: String { canonical }
}

extension PathIndex {
    /// How many bytes the index takes when printed.
    var printedLength: Int {
        switch self {
        case .position(let i): return decimalLength(of: i)
        case .cell(let ip): return decimalLength(of: ip.section) + 1 + decimalLength(of: ip.row)
        }
    }
}

/// Bytes of `value` in decimal, with a sign when negative (only paths built by hand can hold one).
package func decimalLength(of value: Int) -> Int {
    decimalLength(ofMagnitude: value.magnitude) + (value < 0 ? 1 : 0)
}

package func decimalLength(ofMagnitude value: UInt) -> Int {
    var v = value
    var n = 1
    while v >= 10 {
        v /= 10
        n += 1
    }
    return n
}

/// Writes path, event-code and event-id text into a buffer sized beforehand.
package struct ByteWriter {
    let buffer: UnsafeMutableBufferPointer<UInt8>
    package var offset = 0

    package init(_ buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }

    @inline(__always)
    package mutating func byte(_ b: UInt8) {
        precondition(offset < buffer.count, "path text longer than measured")
        buffer[offset] = b
        offset += 1
    }

    package mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { src in
            guard let from = src.baseAddress else { return }
            precondition(offset + src.count <= buffer.count, "path text longer than measured")
            (buffer.baseAddress! + offset).update(from: from, count: src.count)
            offset += src.count
        }
    }

    package mutating func number(_ value: Int) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        var v = value.magnitude
        let digits = decimalLength(ofMagnitude: v)
        precondition(offset + digits <= buffer.count, "path text longer than measured")
        var k = offset + digits - 1
        repeat {
            buffer[k] = UInt8(truncatingIfNeeded: v % 10) &+ 0x30
            v /= 10
            k -= 1
        } while v > 0
        offset += digits
    }

    mutating func index(_ i: PathIndex) {
        switch i {
        case .position(let p): number(p)
        case .cell(let ip):
            number(ip.section)
            byte(UInt8(ascii: ":"))
            number(ip.row)
        }
    }
}

extension ViewPath {
    /// Computes the path of `target` (docs/viewpath.md §2), in the walk a placement takes.
    public init(of target: any ViewNode) {
        self.init(of: target, reusing: nil)
    }

    /// The path of `target`, as `init(of:)`; when it equals `previous` (a hook's last path: the
    /// same control again), `previous` itself, sharing its storage, with no array made.
    public init(of target: any ViewNode, reusing previous: ViewPath?) {
        var elements: PathCollector? = PathCollector(previous: previous)
        _ = ViewPlacement.walk(from: target, path: &elements)
        self = elements.take()!.path
    }

    /// Rule 3: the type name without private contexts and module prefix; a controller with an alias is `Name(alias)`.
    public static func elementName(of node: any ViewNode) -> String {
        let base = TypeName.name(node.typeName)
        if node.role == .controller, let alias = node.pageAlias, !alias.isEmpty {
            return base + "(" + alias + ")"
        }
        return base
    }

    /// Rule 4: how many earlier siblings have the same name; siblings of other names don't count.
    /// What `ViewNode.sameNameSiblingsBefore(name:parent:)` answers unless a toolkit counts itself.
    public static func sameNameSiblingsBefore(_ node: any ViewNode, name: String, parent: any ViewNode) -> Int {
        parent.childNodes.withUnsafeBufferPointer { siblings in
            var count = 0
            for i in siblings.indices {
                if siblings[i] === node { return count }
                if sameBytes(siblings[i].pathName, name) { count += 1 }
            }
            return count
        }
    }
}

/// Byte equality of two strings' UTF-8, without the canonical-equivalence work of `==`.
@inline(__always)
package func sameBytes(_ a: String, _ b: String) -> Bool {
    // The same representation (a small string's bytes in place, or one shared buffer): the same
    // bytes. Names of one class share their buffer, so this answers most comparisons.
    if unsafeBitCast(a, to: (UInt64, UInt64).self) == unsafeBitCast(b, to: (UInt64, UInt64).self) { return true }
    let x = a.utf8, y = b.utf8
    guard x.count == y.count else { return false }
    let fast = x.withContiguousStorageIfAvailable { p in
        y.withContiguousStorageIfAvailable { q in
            for k in 0..<p.count where p[k] != q[k] { return false }
            return true
        }
    }
    if let fast, let result = fast { return result }
    return x.elementsEqual(y)
}
