import EventModel

/// What a node is for path purposes (viewpath.md §1).
public enum ViewRole: String, Sendable, Hashable, CaseIterable {
    case window, controller, cell, view
}

/// A cell's position in its list: section and row, both ≥ 0.
public struct CellIndexPath: Sendable, Hashable, CustomStringConvertible {
    public var section: Int
    public var row: Int

    public init(section: Int, row: Int) {
        self.section = section
        self.row = row
    }

    /// `s:r`, as paths print it.
    public var description: String { "\(section):\(row)" }
}

/// A node of a view tree: what a UI toolkit adopts so that its views get a viewPath and viewId.
///
/// Nodes are objects because a view has identity: a node finds its own position among
/// its parent's children by `===`.
public protocol ViewNode: AnyObject {
    /// The runtime type name as `String(reflecting:)` prints it, e.g. `Shop.ProductCell`.
    var typeName: String { get }
    var role: ViewRole { get }
    var parentNode: (any ViewNode)? { get }
    /// Subviews in order, the first added first.
    var childNodes: [any ViewNode] { get }
    /// Cells only.
    var cellIndexPath: CellIndexPath? { get }
    /// Controllers only: the page alias.
    var pageAlias: String? { get }
    /// Visible text.
    var title: String? { get }
    /// The data behind the view, read by KVC key paths.
    var props: JSONValue? { get }
}

extension ViewNode {
    public var cellIndexPath: CellIndexPath? { nil }
    public var pageAlias: String? { nil }
    public var title: String? { nil }
    public var props: JSONValue? { nil }

    /// The node's viewPath (viewpath.md §2).
    public var viewPath: ViewPath { ViewPath(of: self) }
}

/// The name of a type for paths: its reflected name without the module prefix (viewpath.md §2 rule 3).
public func viewName(ofTypeNamed typeName: String) -> String {
    TypeName.stripModulePrefix(typeName)
}

/// Module-prefix stripping, kept apart because both path names and event codes use it.
public enum TypeName {
    /// `Shop.ProductCell` → `ProductCell`; `Shop.Outer.Inner` → `Outer.Inner`; `UIButton` → `UIButton`.
    /// The text before the first dot must be a plain identifier (letters, digits, `_`);
    /// otherwise (`Box<Shop.X>`) nothing is stripped.
    public static func stripModulePrefix(_ typeName: String) -> String {
        let utf8 = typeName.utf8
        guard let dot = utf8.firstIndex(of: UInt8(ascii: ".")), dot != utf8.startIndex else { return typeName }
        let head = typeName[typeName.startIndex..<dot]
        guard isPlainIdentifier(head) else { return typeName }
        return String(typeName[typeName.index(after: dot)...])
    }

    /// Letters (Unicode), digits and `_`, at least one character.
    static func isPlainIdentifier(_ s: Substring) -> Bool {
        guard !s.isEmpty else { return false }
        for ch in s.unicodeScalars {
            if ch == "_" { continue }
            if ch.isASCII {
                let v = ch.value
                if (0x30...0x39).contains(v) || (0x41...0x5A).contains(v) || (0x61...0x7A).contains(v) { continue }
                return false
            }
            if ch.properties.isAlphabetic || ch.properties.numericType == .decimal { continue }
            return false
        }
        return true
    }
}
