import CObjCRuntime
import Synchronization

/// An Objective-C class, as the runtime registered it.
public struct ObjCClass: Hashable, @unchecked Sendable {
    // @unchecked: classes are registered once and live as long as the process.
    public let pointer: UnsafeMutableRawPointer

    init(_ pointer: UnsafeMutableRawPointer) { self.pointer = pointer }

    /// The class registered under `name`; nil when there is none (yet).
    public static func named(_ name: String) -> ObjCClass? {
        name.withCString { atr_class_named($0) }.map(ObjCClass.init)
    }

    public var name: String { String(cString: atr_class_name(pointer)) }
    public var superclass: ObjCClass? { atr_superclass(pointer).map(ObjCClass.init) }

    /// The type encoding of the instance method `selector` (its own or inherited); nil without one.
    public func methodTypes(_ selector: ObjCSelector) -> String? {
        atr_method_types(pointer, selector.pointer).map { String(cString: $0) }
    }

    /// Whether this class or a superclass is `other`.
    public func isSubclass(of other: ObjCClass) -> Bool {
        var c: ObjCClass? = self
        // Bounded by the depth of the class hierarchy.
        while let k = c {
            if k == other { return true }
            c = k.superclass
        }
        return false
    }
}

/// A selector (`sendAction:to:from:`).
public struct ObjCSelector: Hashable, @unchecked Sendable, ExpressibleByStringLiteral {
    // @unchecked: selectors are registered once and live as long as the process.
    public let pointer: UnsafeRawPointer

    public init(_ name: String) { pointer = name.withCString { atr_selector($0) }! }
    public init(stringLiteral name: String) { self.init(name) }
    public init(_ pointer: UnsafeRawPointer) { self.pointer = pointer }

    public var name: String { String(cString: atr_selector_name(pointer)) }
}

/// Constants of the Objective-C frameworks as the ones in this process define them.
public enum ObjCRuntimeConstants {
    /// `NSWindowOut` (`orderWindow:relativeTo:`'s place that takes a window off the screen).
    public static let windowOut = atr_window_out()
}

/// Up to 64 classes an object's kind is told by at once (`ObjCObject.kinds(of:)`); a class the
/// process does not have (nil) is never matched.
public struct ObjCClassList: Sendable {
    /// The classes' addresses, 0 for a missing one.
    let addresses: [UInt]
    /// The kinds of each runtime class met: a class's superclass chain does not change once it is
    /// registered, so its answer is found in one walk and then looked up (a hidden KVO subclass
    /// is a runtime class of its own, with its own entry).
    private let known = KnownKinds()

    private final class KnownKinds: Sendable {
        let table = Mutex(RuntimeClassTable<ObjCKinds>())
    }

    public init(_ classes: [ObjCClass?]) {
        precondition(classes.count <= 64, "a class list tells at most 64 classes")
        addresses = classes.map { $0.map { UInt(bitPattern: $0.pointer) } ?? 0 }
    }

    /// The kinds of the runtime class at `address`, found by `walk` the first time it is asked.
    func kinds(ofRuntimeClass address: UInt, walk: () -> ObjCKinds) -> ObjCKinds {
        if let found = known.table.withLock({ $0[address] }) { return found }
        let found = walk()
        known.table.withLock { $0[address] = found }
        return found
    }
}

/// Which classes of an `ObjCClassList` an object is a kind of: bit i for the list's i-th class.
public struct ObjCKinds: Sendable, Hashable {
    public let bits: UInt64

    public func contains(_ index: Int) -> Bool { bits & (1 << UInt64(index)) != 0 }
}
