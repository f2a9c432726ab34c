public import EventModel
import Foundation
import Synchronization
public import ViewIdentity

/// Key-path reading from arbitrary Swift values, by `Mirror`.
///
/// This is the live-object reader: a tracker reads a rule's key path from the interaction's view
/// node itself (`read(reflecting: node)`), so an app keeps its business data in its own objects.
///
/// One step, from the value reached so far, in this order:
/// 1. optionals are unwrapped (nested ones too); `nil` names nothing;
/// 2. on a view node (`ViewNode`), `superview` and `parent` both step to the node above
///    (`parentNode`: the superview, or the controller that owns a root view); a node of a JSON view
///    tree (`TreeNode`) answers every other key from its `props` bag, the only place props are read;
/// 3. a `TypedTextHolding` refuses the keys that reveal typed text (unless `readText`, never a
///    password's); a `KeyValueReadable` answers the key itself;
/// 4. a `JSONValue` or `JSONObject` is read as JSON;
/// 5. arrays and other ordered collections take a numeric part as an index; sets take none;
/// 6. dictionaries take the part as a `String` key (an `Int` key also matches a numeric part);
/// 7. tuples take a numeric part as the position, or an element label;
/// 8. an enum takes the name of its current case and yields the payload (a tuple when the case carries
///    several values or one labelled value, whose labels or positions the next part can name; a
///    one-element tuple converts to its element, so `live` and `live.since` both read `case live(since: 3)`);
///    a case without payload, or a different case, names nothing;
/// 9. structs and classes take a stored property's name; a class's superclasses are searched too;
///    `lazy` properties (once computed) and property-wrapper storage (`_name`, read through its
///    `wrappedValue`) are found by their declared name; computed properties are not visible;
/// 10. finally, `rawValue` on any `RawRepresentable` value yields its raw value.
///
/// Every step is bounded by the key path's length, so cycles through class references cannot loop.
extension KVCKeyPath {
    /// Reads the value at this key path from any Swift value and converts it to JSON.
    /// Never throws, never traps: a key that names nothing is a `KeyPathMiss`. Typed text is read
    /// only with `readText` (a rule's `"readText": true`), a password's never (docs/privacy.md).
    public func read(reflecting root: Any, readText: Bool = false) -> Result<JSONValue, KeyPathMiss> {
        value(reflecting: root, readText: readText).map { JSONValue(reflecting: $0) }
    }

    /// Reads the value at this key path from a view node (the same steps, without finding out
    /// by a cast that the root and every `superview`/`parent` it reaches are view nodes).
    public func read(reflecting node: any ViewNode, readText: Bool = false) -> Result<JSONValue, KeyPathMiss> {
        walk(from: .node(node), readText: readText).map { JSONValue(reflecting: $0) }
    }

    /// Reads the Swift value at this key path, unconverted.
    public func value(reflecting root: Any, readText: Bool = false) -> Result<Any, KeyPathMiss> {
        walk(from: .value(root), readText: readText)
    }

    private func walk(from root: Reflection.Reached, readText: Bool) -> Result<Any, KeyPathMiss> {
        var current = root
        for (i, part) in parts.enumerated() {
            switch Reflection.step(current, part, readText: readText) {
            case .success(let next): current = next
            case .failure(let f):
                let walked = parts[..<i].map(\.description).joined(separator: ".")
                return .failure(KeyPathMiss(missingKey: part.description, resolvedPrefix: walked, found: f.found))
            }
        }
        return .success(current.value)
    }
}

enum Reflection {
    /// What a type is to a key path step, found by protocol casts once per type and then looked
    /// up: a failed cast to a protocol (an object that is not an `Optional`, a view node that is
    /// not `KeyValueReadable`) costs more than the rest of a step, and a live read makes several.
    struct Shape: OptionSet, Sendable {
        let rawValue: UInt8
        static let optional = Shape(rawValue: 1)
        static let json = Shape(rawValue: 2)
        static let node = Shape(rawValue: 4)
        static let readable = Shape(rawValue: 8)
        static let jsonObject = Shape(rawValue: 16)
        static let typedText = Shape(rawValue: 32)
    }

    /// What a type is to a key path step: its shape, and how it answers keys itself
    /// (`KeyValueReadable`) and says which keys reveal typed text (`TypedTextHolding`), as
    /// functions that cast a value back to its own type: a cast to a concrete type is a check,
    /// where a cast to a protocol looks the conformance up again, on every step of every read.
    struct Kind: Sendable {
        var shape: Shape = []
        /// Given the value, and the same value as an object when the caller has it so (a view node).
        var answer: (@Sendable (Any, AnyObject?, String) -> Any?)?
        var typedText: (@Sendable (Any, AnyObject?, String) -> TypedText?)?
    }

    /// Per type: its kind. Types are few (those key paths meet), so the table stays small.
    static let kinds = Mutex<[ObjectIdentifier: Kind]>([:])

    static func kind(of value: Any) -> Kind {
        let type = ObjectIdentifier(Swift.type(of: value))
        if let known = kinds.withLock({ $0[type] }) { return known }
        var kind = Kind()
        if value is any OptionalUnwrapping { kind.shape.insert(.optional) }
        if value is JSONValue { kind.shape.insert(.json) }
        if value is any ViewNode { kind.shape.insert(.node) }
        if let readable = value as? any KeyValueReadable {
            kind.shape.insert(.readable)
            if let node = value as? any ViewNode & KeyValueReadable {
                kind.answer = nodeAnswer(of: node)
            } else {
                kind.answer = answer(of: readable)
            }
        }
        if value is JSONObject { kind.shape.insert(.jsonObject) }
        if let holder = value as? any TypedTextHolding {
            kind.shape.insert(.typedText)
            if let node = value as? any ViewNode & TypedTextHolding {
                kind.typedText = nodeTypedText(of: node)
            } else {
                kind.typedText = typedText(of: holder)
            }
        }
        kinds.withLock { $0[type] = kind }
        return kind
    }

    static func shape(of value: Any) -> Shape { kind(of: value).shape }

    private static func answer<T: KeyValueReadable>(of _: T) -> @Sendable (Any, AnyObject?, String) -> Any? {
        { value, _, key in (value as? T)?.value(forKey: key) }
    }

    private static func typedText<T: TypedTextHolding>(of _: T) -> @Sendable (Any, AnyObject?, String) -> TypedText? {
        { value, _, key in (value as? T)?.typedText(forKey: key) }
    }

    private static func nodeAnswer<T: ViewNode & KeyValueReadable>(of _: T) -> @Sendable (Any, AnyObject?, String) -> Any? {
        { value, object, key in node(value, object, as: T.self)?.value(forKey: key) }
    }

    private static func nodeTypedText<T: ViewNode & TypedTextHolding>(of _: T) -> @Sendable (Any, AnyObject?, String) -> TypedText? {
        { value, object, key in node(value, object, as: T.self)?.typedText(forKey: key) }
    }

    /// `value` as the node type `T` its kind was found for. Kinds are kept per dynamic type, so a
    /// value given as an object too is exactly a `T` and is taken as one without a cast (a cast
    /// from `Any` to a type known only at run time costs about 600 instructions, two of them a step).
    @inline(__always)
    private static func node<T: ViewNode>(_ value: Any, _ object: AnyObject?, as _: T.Type) -> T? {
        if let object { return unsafeDowncast(object, to: T.self) }
        return value as? T
    }

    /// Unwraps any number of optional layers; nil when one of them is empty.
    static func unwrap(_ value: Any) -> Any? {
        var current = value
        // Bounded: an optional nests at most as deep as its type is written.
        for _ in 0..<64 {
            guard shape(of: current).contains(.optional), let optional = current as? any OptionalUnwrapping else {
                return current
            }
            guard let inner = optional.unwrappedValue else { return nil }
            current = inner
        }
        return nil
    }

    static func typeName(_ v: Any) -> String {
        let n = String(describing: type(of: v))
        let first = n.first.map { "AEIOU".contains($0) } ?? false
        return (first ? "an " : "a ") + n
    }

    /// What a step reached: a view node known as one, or any value.
    enum Reached {
        case node(any ViewNode)
        case value(Any)

        var value: Any {
            switch self {
            case .node(let n): return n
            case .value(let v): return v
            }
        }
    }

    static func step(_ reached: Reached, _ part: KVCKeyPath.Part, readText: Bool = false) -> Result<Reached, StepFailure> {
        switch reached {
        case .node(let node): return step(node: node, part, readText: readText)
        case .value(let value):
            guard let current = unwrap(value) else { return .failure(StepFailure(found: "nil")) }
            if shape(of: current).contains(.node), let node = current as? any ViewNode {
                return step(node: node, part, readText: readText)
            }
            return step(current, part, readText: readText).map { .value($0) }
        }
    }

    /// Rule 2 on a view node, then the rules for any value.
    static func step(node: any ViewNode, _ part: KVCKeyPath.Part, readText: Bool) -> Result<Reached, StepFailure> {
        if case .key(let k) = part, k == "superview" || k == "parent" {
            guard let above = node.parentNode else { return .failure(StepFailure(found: "the top of the view tree")) }
            return .success(.node(above))
        }
        if let tree = node as? TreeNode { return (tree.props ?? .object(JSONObject())).child(part).map { .value($0) } }
        return step(node as Any, part, readText: readText, object: node).map { .value($0) }
    }

    /// Rules 3 to 10 on an unwrapped value that is not a view node.
    /// `object`: `current` as an object, when the caller has it so (a view node).
    static func step(_ current: Any, _ part: KVCKeyPath.Part, readText: Bool = false, object: AnyObject? = nil) -> Result<Any, StepFailure> {
        let key = part.description
        let kind = kind(of: current)
        let shape = kind.shape
        if shape.contains(.json), let json = current as? JSONValue { return json.child(part).map { $0 as Any } }
        if let typedText = kind.typedText, let text = typedText(current, object, key), text == .password || !readText {
            return .failure(StepFailure(found: text.refusal))
        }
        if let answer = kind.answer {
            if let v = answer(current, object, key) { return .success(v) }
            return .failure(StepFailure(found: typeName(current) + " that does not answer it"))
        }
        if shape.contains(.jsonObject), let object = current as? JSONObject {
            return JSONValue.object(object).child(part).map { $0 as Any }
        }

        let mirror = Mirror(reflecting: current)
        switch mirror.displayStyle {
        case .collection:
            guard case .index(let i) = part else { return .failure(StepFailure(found: "a collection (index it with a number)")) }
            let count = mirror.children.count
            guard i < count else { return .failure(StepFailure(found: "a collection of \(count)")) }
            return .success(mirror.children[mirror.children.index(mirror.children.startIndex, offsetBy: i)].value)
        case .set:
            return .failure(StepFailure(found: "a set, which has no keys or positions"))
        case .dictionary:
            for entry in mirror.children {
                let pair = Array(Mirror(reflecting: entry.value).children)
                guard pair.count == 2 else { continue }
                let k = unwrap(pair[0].value) ?? ""
                if let s = k as? String, s == key { return .success(pair[1].value) }
                if let s = k as? Substring, s == key { return .success(pair[1].value) }
                if case .index(let i) = part, let n = k as? Int, n == i { return .success(pair[1].value) }
            }
            return .failure(StepFailure(found: "a dictionary of \(mirror.children.count) without it"))
        case .tuple:
            let children = Array(mirror.children)
            if case .index(let i) = part, i < children.count { return .success(children[i].value) }
            if let c = children.first(where: { $0.label == key }) { return .success(c.value) }
            return .failure(StepFailure(found: "a tuple of \(children.count)"))
        case .enum:
            if let payload = mirror.children.first, payload.label == key { return .success(payload.value) }
            if key == "rawValue", let raw = rawValue(of: current) { return .success(raw) }
            return .failure(StepFailure(found: "the case .\(caseName(current, mirror))"))
        default:
            if let v = member(named: key, in: mirror, of: current) { return v }
            if key == "rawValue", let raw = rawValue(of: current) { return .success(raw) }
            return .failure(StepFailure(found: typeName(current) + " without it"))
        }
    }

    /// A stored property by its declared name, through lazy storage, wrapper storage and superclasses.
    ///
    /// Where a type keeps a key (how many superclasses up, which child) is remembered per type and
    /// key, so a repeated read evaluates one child instead of every child before it: the runtime
    /// demangles a field's type each time a mirror's child is read, which dominates a read.
    static func member(named key: String, in start: Mirror, of value: Any) -> Result<Any, StepFailure>? {
        let slot = MemberSlot(type: ObjectIdentifier(type(of: value)), key: key)
        if let place = memberPlaces.withLock({ $0[slot] }) {
            var mirror: Mirror? = start
            for _ in 0..<place.depth { mirror = mirror?.superclassMirror }
            if let m = mirror, place.index < m.children.count {
                let c = m.children[m.children.index(m.children.startIndex, offsetBy: place.index)]
                if c.label == place.label { return member(c.value, place.kind) }
            }
        }
        let lazyLabel = "$__lazy_storage_$_" + key
        let wrapperLabel = "_" + key
        var mirror: Mirror? = start
        var depth = 0
        // Bounded by the depth of the class hierarchy.
        while let m = mirror {
            for (index, c) in m.children.enumerated() {
                guard let label = c.label else { continue }
                let kind: MemberPlace.Kind
                if label == key {
                    kind = .plain
                } else if label == lazyLabel {
                    kind = .lazy
                } else if label == wrapperLabel {
                    kind = .wrapper
                } else {
                    continue
                }
                memberPlaces.withLock { $0[slot] = MemberPlace(depth: depth, index: index, label: label, kind: kind) }
                return member(c.value, kind)
            }
            mirror = m.superclassMirror
            depth += 1
        }
        return nil
    }

    /// The value of a found child: as stored, a computed lazy property, or a wrapper's `wrappedValue`.
    static func member(_ value: Any, _ kind: MemberPlace.Kind) -> Result<Any, StepFailure> {
        switch kind {
        case .plain:
            return .success(value)
        case .lazy:
            guard let v = unwrap(value) else { return .failure(StepFailure(found: "a lazy property not yet computed")) }
            return .success(v)
        case .wrapper:
            let wrapper = Mirror(reflecting: value)
            if let wrapped = wrapper.children.first(where: { $0.label == "wrappedValue" }) { return .success(wrapped.value) }
            return .success(value)
        }
    }

    struct MemberSlot: Hashable {
        var type: ObjectIdentifier
        var key: String
    }

    struct MemberPlace {
        enum Kind { case plain, lazy, wrapper }
        var depth: Int
        var index: Int
        var label: String
        var kind: Kind
    }

    /// Per type and key: where the member was found. Types are few, so the table stays small.
    static let memberPlaces = Mutex<[MemberSlot: MemberPlace]>([:])

    static func rawValue(of value: Any) -> Any? {
        guard let r = value as? any RawRepresentable else { return nil }
        func open<T: RawRepresentable>(_ v: T) -> Any { v.rawValue }
        return open(r)
    }

    static func caseName(_ value: Any, _ mirror: Mirror) -> String {
        if let label = mirror.children.first?.label { return label }
        return String(describing: value)
    }
}

/// What every `Optional` is, so that a value's optional layers are found by a cast.
protocol OptionalUnwrapping {
    var unwrappedValue: Any? { get }
}

extension Optional: OptionalUnwrapping {
    var unwrappedValue: Any? { map { $0 as Any } }
}

extension JSONValue {
    /// Converts a Swift value to JSON, so that what a key path reads can go on the wire.
    ///
    /// Strings, booleans and numbers become scalars (non-finite doubles and unsigned integers above
    /// `Int64.max` become doubles or null); `RawRepresentable` values their raw value; enums without
    /// payload their case name, with payload `{"case": payload}`; arrays, sets (sorted), string-keyed
    /// dictionaries (sorted by key), tuples, structs and classes become arrays and objects. `Date` becomes
    /// milliseconds since 1970, `URL` its absolute string, `UUID` its string. Anything else (functions,
    /// metatypes) becomes its description. Deeper than `maxDepth` levels, or a class instance met again
    /// inside itself (a cycle), becomes null.
    public init(reflecting value: Any, maxDepth: Int = 16) {
        // Text, the commonest read, in one cast (the same cast `scalar` makes after unwrapping).
        if let text = value as? String {
            self = .string(text)
            return
        }
        var visiting: Set<ObjectIdentifier> = []
        var budget = 10_000
        self = Reflection.convert(value, depth: maxDepth, visiting: &visiting, budget: &budget)
    }

    /// This value as a wire `props` value: scalars stay, arrays and objects become their compact JSON text.
    public var propValue: JSONValue {
        isScalar ? self : .string(jsonText)
    }
}

extension Reflection {
    static func convert(_ value: Any, depth: Int, visiting: inout Set<ObjectIdentifier>, budget: inout Int) -> JSONValue {
        budget -= 1
        guard depth > 0, budget > 0 else { return .null }
        guard let v = unwrap(value) else { return .null }
        if let scalar = scalar(v) { return scalar }
        if let raw = rawValue(of: v) { return convert(raw, depth: depth - 1, visiting: &visiting, budget: &budget) }
        let mirror = Mirror(reflecting: v)
        var identity: ObjectIdentifier?
        if mirror.displayStyle == .class {
            let id = ObjectIdentifier(v as AnyObject)
            guard !visiting.contains(id) else { return .null }
            visiting.insert(id)
            identity = id
        }
        defer { if let identity { visiting.remove(identity) } }
        func each(_ c: Mirror.Children) -> [JSONValue] {
            var out: [JSONValue] = []
            for child in c { out.append(convert(child.value, depth: depth - 1, visiting: &visiting, budget: &budget)) }
            return out
        }
        switch mirror.displayStyle {
        case .collection:
            return .array(each(mirror.children))
        case .set:
            return .array(each(mirror.children).sorted { $0.jsonText < $1.jsonText })
        case .dictionary:
            var pairs: [(String, JSONValue)] = []
            for entry in mirror.children {
                let pair = Array(Mirror(reflecting: entry.value).children)
                guard pair.count == 2 else { continue }
                let k = unwrap(pair[0].value).map { ($0 as? String) ?? String(describing: $0) } ?? "null"
                pairs.append((k, convert(pair[1].value, depth: depth - 1, visiting: &visiting, budget: &budget)))
            }
            return .object(JSONObject(pairs.sorted { $0.0 < $1.0 }))
        case .tuple:
            let children = Array(mirror.children)
            // A one-element tuple is how a single labelled enum payload, `case live(since: Int)`, reflects.
            if children.count == 1 { return convert(children[0].value, depth: depth - 1, visiting: &visiting, budget: &budget) }
            if children.allSatisfy({ $0.label?.hasPrefix(".") ?? true }) { return .array(each(mirror.children)) }
            return .object(JSONObject(children.enumerated().map { (i, c) in
                (c.label.map { $0.hasPrefix(".") ? String($0.dropFirst()) : $0 } ?? String(i), convert(c.value, depth: depth - 1, visiting: &visiting, budget: &budget))
            }))
        case .enum:
            guard let payload = mirror.children.first else { return .string(String(describing: v)) }
            return .object(JSONObject([(payload.label ?? "case", convert(payload.value, depth: depth - 1, visiting: &visiting, budget: &budget))]))
        case .struct, .class:
            var pairs: [(String, JSONValue)] = []
            var chain: [Mirror] = []
            var m: Mirror? = mirror
            while let c = m {
                chain.append(c)
                m = c.superclassMirror
            }
            for c in chain.reversed() {
                for child in c.children {
                    guard var label = child.label else { continue }
                    if label.hasPrefix("$__lazy_storage_$_") { label = String(label.dropFirst("$__lazy_storage_$_".count)) }
                    pairs.append((label, convert(child.value, depth: depth - 1, visiting: &visiting, budget: &budget)))
                }
            }
            if pairs.isEmpty { return .string(String(describing: v)) }
            return .object(JSONObject(pairs))
        default:
            return .string(String(describing: v))
        }
    }

    static func scalar(_ v: Any) -> JSONValue? {
        // Each case is a type of its own, so the order is only speed: text first, the commonest read.
        switch v {
        case let s as String: return .string(s)
        case let j as JSONValue: return j
        case let o as JSONObject: return .object(o)
        case let s as Substring: return .string(String(s))
        case let c as Character: return .string(String(c))
        case let b as Bool: return .bool(b)
        case let i as Int: return .int(Int64(i))
        case let i as Int8: return .int(Int64(i))
        case let i as Int16: return .int(Int64(i))
        case let i as Int32: return .int(Int64(i))
        case let i as Int64: return .int(i)
        case let u as UInt: return unsigned(UInt64(u))
        case let u as UInt8: return .int(Int64(u))
        case let u as UInt16: return .int(Int64(u))
        case let u as UInt32: return .int(Int64(u))
        case let u as UInt64: return unsigned(u)
        case let d as Double: return d.isFinite ? .double(d) : .null
        case let f as Float: return f.isFinite ? .double(Double(f)) : .null
        case let d as Date: return .int(Int64((d.timeIntervalSince1970 * 1000).rounded()))
        case let u as URL: return .string(u.absoluteString)
        case let u as UUID: return .string(u.uuidString)
        default: return nil
        }
    }

    static func unsigned(_ u: UInt64) -> JSONValue {
        u <= UInt64(Int64.max) ? .int(Int64(u)) : .double(Double(u))
    }
}
