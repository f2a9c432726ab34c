import EventModel
public import KVCConfig
public import ObjCRuntime
public import ViewIdentity

/// A live AppKit object as a view-tree node, by the rules of docs/viewpath.md §6: a window's page,
/// a view, a cell of an `NSMatrix`, a row of a table, a menu or a menu item.
///
/// Nodes do not retain their objects: make and use them on the main thread, inside the hooked call
/// that found them, while AppKit keeps the objects alive. What a node finds (parent, window,
/// ignore answer) is therefore only ever read and written on that thread, never in overlapping
/// accesses, and goes without dynamic exclusivity checks (one for each read of `parentNode`).
public final class AppKitNode: ViewNode, KeyValueReadable, TypedTextHolding {
    public enum Kind: Equatable {
        /// The page of a window; `owner` is the object it is named after (controller, delegate or the window).
        case page(window: ObjCObject, owner: ObjCObject)
        case view(ObjCObject)
        /// A cell of an `NSMatrix` at `[row, column]`.
        case matrixCell(matrix: ObjCObject, cell: ObjCObject, row: Int, column: Int)
        /// A row of an `NSTableView` / `NSOutlineView`.
        case tableRow(table: ObjCObject, row: Int)
        /// A menu: the main menu is a page of its own.
        case menu(ObjCObject)
        case menuItem(ObjCObject)
    }

    public let kind: Kind
    public let typeName: String
    private let named: Bool
    /// The runtime class of the object the node is named after when it was made (0 for a table
    /// row): the same runtime class again means the same class name.
    private let namedClass: UInt

    /// `typeName`: the name to give the node instead of its class's (a page left after its
    /// controller went keeps the name it was entered with).
    public init(_ kind: Kind, typeName given: String? = nil) {
        self.kind = kind
        named = given != nil
        namedClass = AppKitNode.runtimeClass(of: kind)
        typeName = given ?? AppKitNode.className(of: kind)
    }

    /// The object whose class names a node of `kind`; nil for a table row (named `NSTableRow`).
    private static func namingObject(of kind: Kind) -> ObjCObject? {
        switch kind {
        case .page(_, let owner): return owner
        case .view(let o), .menu(let o), .menuItem(let o): return o
        case .matrixCell(_, let cell, _, _): return cell
        case .tableRow: return nil
        }
    }

    private static func className(of kind: Kind) -> String { namingObject(of: kind)?.className ?? "NSTableRow" }

    private static func runtimeClass(of kind: Kind) -> UInt {
        namingObject(of: kind).map { UInt(bitPattern: $0.runtimeClass.pointer) } ?? 0
    }

    /// The node of `kind`, made again from `last` when that node stands for the same object, of
    /// the same class, and nothing else holds it: what it had found (parent, window, ignore answer)
    /// is forgotten, so it answers as a new node would, and its old parent is the first candidate
    /// for its parent. Otherwise a new node, whose candidate parent is `last`'s (a sibling's).
    /// Saves making and freeing a node per ancestor when actions repeat on a control.
    static func remade(_ kind: Kind, from last: inout AppKitNode?) -> AppKitNode {
        if let old = takenAgain(&last, for: kind) { return old }
        let made = AppKitNode(kind)
        made.parent = last?.parent
        return made
    }

    /// `candidate`, its findings forgotten, when it stands for `kind` again and nothing else holds it.
    private static func takenAgain(_ candidate: inout AppKitNode?, for kind: Kind) -> AppKitNode? {
        guard isKnownUniquelyReferenced(&candidate), let old = candidate, old.standsAgain(for: kind) else { return nil }
        old.forget()
        return old
    }

    /// Whether this node, named by its class, can stand for `kind` again: the same object, of the same class.
    private func standsAgain(for kind: Kind) -> Bool {
        guard !named, self.kind == kind else { return false }
        // The runtime class changes when KVO gives the object a hidden subclass: then its name is asked.
        return namedClass == AppKitNode.runtimeClass(of: kind) || typeName == AppKitNode.className(of: kind)
    }

    /// Forgets what was found, keeping the parent only as a candidate for `findParent`.
    private func forget() {
        parentFound = false
        knownWindow = nil
        ignoredFound = nil
        textKinds = nil
    }

    /// The parent of `kind`: the candidate made again when it stands for the same object and only
    /// this node holds it, else a new node.
    private func parent(_ kind: Kind) -> AppKitNode {
        AppKitNode.takenAgain(&parent, for: kind) ?? AppKitNode(kind)
    }

    /// The node of `view`: a window's content view hangs under its window's page.
    public static func view(_ view: ObjCObject) -> AppKitNode { AppKitNode(.view(view)) }

    /// The page node of `window`, named after its `windowController`, its `delegate` when that is
    /// not a view, or the window itself.
    public static func page(of window: ObjCObject) -> AppKitNode {
        AppKitNode(.page(window: window, owner: AppKit.pageOwner(of: window)))
    }

    /// The object the node stands for (what key paths read).
    public var object: ObjCObject {
        switch kind {
        case .page(_, let owner): return owner
        case .view(let o), .menu(let o), .menuItem(let o): return o
        case .matrixCell(_, let cell, _, _): return cell
        case .tableRow(let table, _): return table
        }
    }

    // MARK: ViewNode

    public var role: ViewRole {
        switch kind {
        case .page: return .controller
        case .menu(let m): return AppKit.isMainMenu(m) ? .controller : .view
        case .matrixCell, .tableRow: return .cell
        default: return .view
        }
    }

    public var pathName: String { typeName }

    /// The parent, found once: a path and the ignore check walk the same ancestors.
    public var parentNode: (any ViewNode)? {
        if !parentFound {
            parent = findParent()
            parentFound = true
        }
        return parent
    }

    @exclusivity(unchecked) private var parentFound = false
    /// Once `parentFound`, the parent; before, a candidate for it (`remade`).
    @exclusivity(unchecked) private var parent: AppKitNode?
    /// A view's window, when known.
    @exclusivity(unchecked) private var knownWindow: WindowFacts?

    /// A view's window, that window's content view and the object its page is named after.
    private struct WindowFacts {
        let window: ObjCObject
        let content: ObjCObject?
        let pageOwner: ObjCObject
    }

    /// The window of view `v`, asked once per walk: a view's ancestors share it (`findParent`).
    private func windowFacts(of v: ObjCObject) -> WindowFacts? {
        if knownWindow == nil, let found = (try? v.send(AppKit.window)) ?? nil {
            knownWindow = WindowFacts(
                window: found, content: (try? found.send(AppKit.contentView)) ?? nil, pageOwner: AppKit.pageOwner(of: found))
        }
        return knownWindow
    }

    /// For a view: the object its window's page is named after (`AppKit.pageOwner(of:)`), found
    /// once with the window, which the parents' walk shares; nil for a view in no window and for
    /// other nodes.
    public var windowPageOwner: ObjCObject? {
        guard case .view(let v) = kind else { return nil }
        return windowFacts(of: v)?.pageOwner
    }

    private func findParent() -> AppKitNode? {
        switch kind {
        case .page: return nil
        case .view(let v):
            // A window's content view hangs under the page, not under the window's own frame views.
            let window = windowFacts(of: v)
            if let window, window.content == v {
                return parent(.page(window: window.window, owner: window.pageOwner))
            }
            guard let superview = (try? v.send(AppKit.superview)) ?? nil else { return nil }
            let above = parent(.view(superview))
            above.knownWindow = window
            return above
        case .matrixCell(let matrix, _, _, _): return parent(.view(matrix))
        case .tableRow(let table, _): return parent(.view(table))
        case .menuItem(let item): return (try? item.send(AppKit.menu)).map { AppKitNode(.menu($0)) }
        case .menu(let menu):
            // A submenu hangs under the item of its supermenu that opens it.
            guard let supermenu = try? menu.send(AppKit.supermenu) else { return nil }
            for item in AppKit.items(of: supermenu) where (try? item.send(AppKit.submenu)) == menu {
                return AppKitNode(.menuItem(item))
            }
            return AppKitNode(.menu(supermenu))
        }
    }

    public var childNodes: [any ViewNode] {
        switch kind {
        case .page(let window, _):
            return ((try? window.send(AppKit.contentView)) ?? nil).map { [AppKitNode.view($0)] } ?? []
        case .view(let v):
            if v.isKind(of: AppKit.matrixClass) { return AppKit.cells(of: v) }
            return AppKit.subviews(of: v).map(AppKitNode.view)
        case .menu(let m): return AppKit.items(of: m).map { AppKitNode(.menuItem($0)) }
        case .menuItem(let item):
            return ((try? item.send(AppKit.submenu)) ?? nil).map { [AppKitNode(.menu($0))] } ?? []
        case .matrixCell, .tableRow: return []
        }
    }

    public var cellIndexPath: CellIndexPath? {
        switch kind {
        case .matrixCell(_, _, let row, let column): return CellIndexPath(section: row, row: column)
        case .tableRow(_, let row): return CellIndexPath(section: 0, row: row)
        default: return nil
        }
    }

    /// Rule 4 over the parent's objects, by class name, without a node per sibling.
    public func sameNameSiblingsBefore(name: String, parent: any ViewNode) -> Int {
        switch kind {
        case .view(let v):
            guard let p = parent as? AppKitNode, case .view(let superview) = p.kind else { return 0 }
            return superview.countOfClass(named: name, before: v, in: AppKit.subviewsSelector)
        case .menuItem(let item):
            guard let p = parent as? AppKitNode, case .menu(let menu) = p.kind else { return 0 }
            return menu.countOfClass(named: name, before: item, in: AppKit.itemArray)
        default:
            // A submenu is the one child of its item; pages and cells take no sibling count.
            return 0
        }
    }

    /// The visible label: `title` of buttons, menu items, boxes and windows; `stringValue` of a
    /// text field that is neither editable nor secure. Typed text is never a title.
    public var title: String? {
        switch kind {
        case .page(let window, _): return AppKit.string(window, AppKit.title)
        case .menu(let m): return AppKit.string(m, AppKit.title)
        case .menuItem(let item): return AppKit.string(item, AppKit.title)
        case .matrixCell(_, let cell, _, _): return AppKit.string(cell, AppKit.title)
        case .tableRow: return nil
        case .view(let v):
            let text = textKinds(of: v)
            if text.contains(TextClass.secureField) { return nil }
            if text.contains(TextClass.field) {
                return (try? v.bool(AppKit.isEditable)) == false ? AppKit.string(v, AppKit.stringValue) : nil
            }
            if v.responds(to: AppKit.title) { return AppKit.string(v, AppKit.title) }
            return nil
        }
    }

    /// The view's `identifier` where one is set.
    public var id: String? {
        guard case .view(let v) = kind, v.responds(to: AppKit.identifier) else { return nil }
        return AppKit.string(v, AppKit.identifier)
    }

    public var ignoresTracking: Bool { id == "autotrack-ignore" }

    /// Whether this node or an ancestor is ignored, found once: the hooks and the tracker both ask.
    public var isInIgnoredView: Bool {
        if let known = ignoredFound { return known }
        let found = ignoresTracking || (parentNode?.isInIgnoredView ?? false)
        ignoredFound = found
        return found
    }

    @exclusivity(unchecked) private var ignoredFound: Bool?

    // MARK: KeyValueReadable

    /// The real `valueForKeyPath:` on the node's object, one key at a time: a key the object does
    /// not have (`NSUnknownKeyException`, caught in the shim) names nothing, so the rule's read
    /// becomes a `kvc_error` naming it.
    public func value(forKey key: String) -> Any? {
        ObjCKeyValue.read(object, key)
    }

    // MARK: TypedTextHolding

    /// The keys of a text field's or text view's contents.
    private static let textKeys: Set<String> = [
        "stringValue", "objectValue", "attributedStringValue", "intValue", "doubleValue", "floatValue", "string", "textStorage",
    ]

    /// A secure text field reveals nothing; an editable text field's and a text view's text are typed.
    public func typedText(forKey key: String) -> TypedText? {
        guard case .view(let v) = kind else { return nil }
        let text = textKinds(of: v)
        if text.contains(TextClass.secureField) { return .password }
        // The class first: most views hold no text, and their keys are then not looked up.
        if text.contains(TextClass.textView) { return AppKitNode.textKeys.contains(key) ? .typed : nil }
        if text.contains(TextClass.field), AppKitNode.textKeys.contains(key), (try? v.bool(AppKit.isEditable)) == true {
            return .typed
        }
        return nil
    }

    /// The text classes a view can be a kind of, as bits of `textClasses`.
    private enum TextClass {
        static let secureField = 0
        static let field = 1
        static let textView = 2
    }

    private static let textClasses = ObjCClassList([AppKit.secureTextFieldClass, AppKit.textFieldClass, AppKit.textViewClass])

    /// Which text classes view `v` is a kind of, told in one walk of its class chain when first
    /// asked (`title` and `typedText(forKey:)` both ask; the object and its class are the node's).
    private func textKinds(of v: ObjCObject) -> ObjCKinds {
        if let known = textKinds { return known }
        let found = v.kinds(of: AppKitNode.textClasses)
        textKinds = found
        return found
    }

    @exclusivity(unchecked) private var textKinds: ObjCKinds?
}

/// A value a key path reached that is an Objective-C object: its keys are read by the real
/// `valueForKeyPath:` too.
public struct ObjCKeyValue: KeyValueReadable {
    public let object: ObjCObject

    public func value(forKey key: String) -> Any? { ObjCKeyValue.read(object, key) }

    /// `[object valueForKeyPath:key]` as a Swift value; nil when the key is unknown (or nil).
    static func read(_ object: ObjCObject, _ key: String) -> Any? {
        guard let value = try? object.value(forKeyPath: key) else { return nil }
        return swiftValue(value, depth: 0)
    }

    static func swiftValue(_ object: ObjCObject, depth: Int) -> Any {
        switch object.value {
        case .string(let s): return s
        case .bool(let b): return b
        case .integer(let i): return i
        case .double(let d): return d
        case .array(let items): return depth > 2 ? [Any]() : items.map { swiftValue($0, depth: depth + 1) }
        case .object(let o): return ObjCKeyValue(object: o)
        }
    }
}
