import Foundation
public import KVCConfig

/// Builds an inventory from Swift sources, best effort: per class (and extension), the methods that can
/// be actions, as selector-style names.
///
/// A method counts when it is `@objc`, `@IBAction` or `@IBSegueAction`, an `override` (an override of an
/// Objective-C method, such as `viewDidLoad`, is implicitly `@objc`; the superclass is not known here, so
/// every override is listed), sits in an `@objcMembers` class, or takes a sender (its first parameter is named or labelled `sender`, or typed as a control:
/// a type whose name ends in Button, Control, Switch, Slider, Stepper, TextField, Picker, BarButtonItem
/// or GestureRecognizer). Selector names follow Swift's Objective-C naming: `f(_ a: X)` → `f:`,
/// `f(sender: X)` → `fWithSender:`, `f(_ a: X, forEvent e: Y)` → `f:forEvent:`, `f()` → `f`, and
/// `@objc(name:)` wins. Static and class methods, initializers, protocol requirements and functions
/// inside function bodies are left out. Nested types are named `Outer.Inner`; an extension adds to the
/// type it names. Only classes and extensions are listed (structs, enums, actors are not action targets).
///
/// Limits: no swift-syntax. A light tokenizer skips comments and string literals and tracks braces;
/// `#if` branches are all read; macros and code generated at build time are not seen.
public enum InventoryBuilder {
    /// The inventory of one Swift source text.
    public static func inventory(source: String) -> Inventory {
        var inv = Inventory()
        add(source: source, to: &inv)
        return inv
    }

    /// The inventory of every `.swift` file under `directory` (hidden folders and `.build` skipped),
    /// read in sorted order.
    public static func inventory(directory: String) throws(InventoryError) -> Inventory {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDir) else {
            throw InventoryError(path: directory, reason: "no such file or directory")
        }
        var inv = Inventory()
        let files: [String]
        if isDir.boolValue {
            guard let e = FileManager.default.enumerator(atPath: directory) else {
                throw InventoryError(path: directory, reason: "cannot list the directory (check its permissions)")
            }
            var found: [String] = []
            while let rel = e.nextObject() as? String {
                let last = (rel as NSString).lastPathComponent
                if last.hasPrefix(".") {
                    e.skipDescendants()
                    continue
                }
                if rel.hasSuffix(".swift") { found.append(rel) }
            }
            files = found.sorted().map { (directory as NSString).appendingPathComponent($0) }
        } else {
            files = [directory]
        }
        for f in files {
            guard let data = FileManager.default.contents(atPath: f) else {
                throw InventoryError(path: f, reason: "cannot read the file (check its permissions)")
            }
            add(source: String(decoding: data, as: UTF8.self), to: &inv)
        }
        return inv
    }

    static func add(source: String, to inv: inout Inventory) {
        var p = SourceScanner(tokens: SwiftTokenizer.tokenize(source))
        p.scan()
        for (name, actions) in p.found { inv.add(className: name, actions: actions) }
    }
}

/// A source path the inventory builder could not read.
public struct InventoryError: Error, Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}

/// Walks tokens, tracking type scopes by braces.
private struct SourceScanner {
    typealias Token = SwiftTokenizer.Token

    enum TypeKind { case classType, extensionType, other, protocolType }

    struct Scope {
        /// Set for a type body; nil for any other braces (function bodies, closures, accessors).
        var typeName: String?
        var kind: TypeKind
        var objcMembers: Bool
    }

    let tokens: [Token]
    var i = 0
    var scopes: [Scope] = []
    var found: [String: Set<String>] = [:]

    // Declaration state since the last declaration or brace.
    var attributes: [String] = []
    var objcSelector: String?
    var isStatic = false
    var isOverride = false
    var pendingType: (name: String, kind: TypeKind, objcMembers: Bool)?

    init(tokens: [Token]) { self.tokens = tokens }

    static let typeKeywords: [String: TypeKind] = [
        "class": .classType, "extension": .extensionType, "struct": .other, "enum": .other, "actor": .other,
        "protocol": .protocolType,
    ]
    static let declarationWords: Set<String> = [
        "func", "var", "let", "init", "deinit", "subscript", "typealias", "case", "class", "struct", "enum", "extension",
        "protocol", "actor", "static", "final", "override", "public", "private", "fileprivate", "internal", "open",
        "dynamic", "mutating", "nonmutating", "convenience", "required", "lazy", "weak", "unowned", "indirect",
        "nonisolated", "associatedtype", "operator", "import",
    ]

    func peek(_ k: Int = 0) -> Token? { i + k < tokens.count ? tokens[i + k] : nil }

    mutating func resetDeclaration() {
        attributes = []
        objcSelector = nil
        isStatic = false
        isOverride = false
    }

    /// The innermost type scope, when the current braces are a type's body.
    var currentType: Scope? {
        guard let top = scopes.last, top.typeName != nil else { return nil }
        return top
    }

    mutating func scan() {
        while let t = peek() {
            switch t {
            case .attribute(let a):
                i += 1
                attributes.append(a)
                if peek() == .punct("(") {
                    let inner = balanced(open: "(", close: ")")
                    if a == "objc" { objcSelector = inner.compactMap(Self.text).joined() }
                }
            case .punct("{"):
                i += 1
                if let p = pendingType {
                    scopes.append(Scope(typeName: p.name, kind: p.kind, objcMembers: p.objcMembers))
                    if p.kind == .classType || p.kind == .extensionType { found[p.name, default: []].formUnion([]) }
                } else {
                    scopes.append(Scope(typeName: nil, kind: .other, objcMembers: false))
                }
                pendingType = nil
                resetDeclaration()
            case .punct("}"):
                i += 1
                if !scopes.isEmpty { scopes.removeLast() }
                pendingType = nil
                resetDeclaration()
            case .punct(";"):
                i += 1
                resetDeclaration()
            case .word(let w):
                i += 1
                if w == "static" { isStatic = true }
                if w == "override" { isOverride = true }
                if let kind = Self.typeKeywords[w], case .word(let name)? = peek(), !Self.declarationWords.contains(name),
                    name != "func", name != "var", name != "let"
                {
                    i += 1
                    var full = name
                    while peek() == .punct("."), case .word(let more)? = peek(1) {
                        full += "." + more
                        i += 2
                    }
                    if kind != .extensionType, let outer = scopes.last?.typeName { full = outer + "." + full }
                    pendingType = (full, kind, attributes.contains("objcMembers"))
                    resetDeclaration()
                } else if w == "class" {
                    isStatic = true  // `class func`, `class var`: a type member.
                } else if w == "func" {
                    scanFunction()
                    resetDeclaration()
                } else if ["var", "let", "init", "deinit", "subscript", "typealias", "case", "import"].contains(w) {
                    resetDeclaration()
                }
            default:
                i += 1
            }
        }
    }

    static func text(_ t: Token) -> String? {
        switch t {
        case .word(let w): return w
        case .punct(let p): return p
        default: return nil
        }
    }

    /// The tokens between `open` at `i` and its matching `close`, leaving `i` after it.
    mutating func balanced(open: String, close: String) -> [Token] {
        guard peek() == .punct(open) else { return [] }
        i += 1
        var depth = 1
        var out: [Token] = []
        while let t = peek() {
            i += 1
            if t == .punct(open) { depth += 1 }
            if t == .punct(close) {
                depth -= 1
                if depth == 0 { return out }
            }
            out.append(t)
        }
        return out
    }

    mutating func scanFunction() {
        guard case .word(let name)? = peek() else { return }  // An operator: never an action.
        i += 1
        if peek() == .punct("<") { _ = balanced(open: "<", close: ">") }
        guard peek() == .punct("(") else { return }
        let params = parameters(balanced(open: "(", close: ")"))
        guard let type = currentType, type.kind == .classType || type.kind == .extensionType, !isStatic else { return }
        let marked = attributes.contains("objc") || attributes.contains("IBAction") || attributes.contains("IBSegueAction")
        let takesSender = params.first.map { $0.label == "sender" || $0.name == "sender" || Self.isControlType($0.typeName) } ?? false
        let swiftSelector = Self.selector(name: name, params: params)
        let delegateSelector = Self.hookedDelegateSelectors[swiftSelector]
        guard marked || isOverride || type.objcMembers || takesSender || delegateSelector != nil else { return }
        let selector = objcSelector.flatMap { $0.isEmpty ? nil : $0 } ?? delegateSelector ?? swiftSelector
        found[type.typeName!, default: []].insert(selector)
    }

    struct Parameter {
        var label: String
        var name: String
        var typeName: String
    }

    func parameters(_ tokens: [Token]) -> [Parameter] {
        var groups: [[Token]] = [[]]
        var depth = 0
        for t in tokens {
            switch t {
            case .punct("("), .punct("["), .punct("<"): depth += 1
            case .punct(")"), .punct("]"), .punct(">"): depth -= 1
            default: break
            }
            if t == .punct(","), depth == 0 {
                groups.append([])
            } else {
                groups[groups.count - 1].append(t)
            }
        }
        return groups.compactMap { g in
            guard let colon = g.firstIndex(of: .punct(":")) else { return nil }
            let names = g[..<colon].compactMap { t -> String? in if case .word(let w) = t { return w } else { return nil } }
            guard let first = names.first else { return nil }
            // The type's base name: the last word before any generic arguments or `=`.
            var typeName = ""
            for t in g[(colon + 1)...] {
                if t == .punct("=") || t == .punct("<") { break }
                if case .word(let w) = t, !["inout", "some", "any", "borrowing", "consuming"].contains(w) { typeName = w }
            }
            return Parameter(label: first, name: names.count > 1 ? names[1] : first, typeName: typeName)
        }
    }

    /// Delegate methods the hooks report as actions (row selection, the end of a drag), by the
    /// selector Swift's rules give them, to the Objective-C selector UIKit names them by (and the
    /// hooks put in event codes): UIKit renames some for Swift, so the rules alone would miss them.
    static let hookedDelegateSelectors: [String: String] = [
        "tableView:didSelectRowAt:": "tableView:didSelectRowAtIndexPath:",
        "collectionView:didSelectItemAt:": "collectionView:didSelectItemAtIndexPath:",
        "scrollViewDidEndDragging:willDecelerate:": "scrollViewDidEndDragging:willDecelerate:",
    ]

    static let controlSuffixes = [
        "Button", "Control", "Switch", "Slider", "Stepper", "TextField", "Picker", "BarButtonItem", "GestureRecognizer",
    ]

    static func isControlType(_ name: String) -> Bool {
        controlSuffixes.contains { name.hasSuffix($0) }
    }

    /// Swift's Objective-C name for a method: `f`, `f:`, `fWithLabel:`, `f:second:`.
    static func selector(name: String, params: [Parameter]) -> String {
        guard let first = params.first else { return name }
        var s = name
        if first.label != "_" { s += "With" + first.label.prefix(1).uppercased() + first.label.dropFirst() }
        s += ":"
        for p in params.dropFirst() { s += (p.label == "_" ? "" : p.label) + ":" }
        return s
    }
}
