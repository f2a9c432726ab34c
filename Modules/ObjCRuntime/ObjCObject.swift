import CObjCRuntime
import Synchronization

/// An Objective-C object (`id`), not retained: valid while its owner keeps it, inside the
/// autorelease pool it was handed out in. Every message goes through the C seam, which catches
/// what the message raises.
public struct ObjCObject: Hashable, @unchecked Sendable {
    // @unchecked: a bare address; what may be done with it on which thread is the caller's rule
    // (AppKit objects: the main thread only).
    public let pointer: UnsafeMutableRawPointer

    public init(_ pointer: UnsafeMutableRawPointer) { self.pointer = pointer }

    public init?(_ pointer: UnsafeMutableRawPointer?) {
        guard let pointer else { return nil }
        self.pointer = pointer
    }

    /// The object's class as `-class` answers it: the public class, never a hidden KVO subclass.
    public var objectClass: ObjCClass? { (try? send("class")).map { ObjCClass(UnsafeMutableRawPointer($0.pointer)) } }

    /// The name of `objectClass` (docs/viewpath.md §6 "type"), asked once per runtime class.
    public var className: String {
        let runtime = UInt(bitPattern: runtimeClass.pointer)
        if let known = ObjCObject.classNames.withLock({ $0[runtime] }) { return known }
        let name = objectClass?.name ?? runtimeClass.name
        ObjCObject.classNames.withLock { $0[runtime] = name }
        return name
    }

    /// The public class name of each runtime class met.
    private static let classNames = Mutex(RuntimeClassTable<String>())

    /// The class the runtime holds for the object (may be a hidden subclass such as `GSKVO…`).
    public var runtimeClass: ObjCClass { ObjCClass(atr_runtime_class(pointer)!) }

    public func isKind(of cls: ObjCClass) -> Bool { atr_is_kind(pointer, cls.pointer) != 0 }

    /// Which of `classes` the object is a kind of, in one walk up its class chain where each
    /// `isKind(of:)` walks it again.
    public func kinds(of classes: ObjCClassList) -> ObjCKinds {
        classes.kinds(ofRuntimeClass: UInt(bitPattern: runtimeClass.pointer)) {
            ObjCKinds(bits: classes.addresses.withUnsafeBufferPointer { atr_kinds(pointer, $0.baseAddress, Int32($0.count)) })
        }
    }

    /// Whether the object's class implements `selector` (forwarding not counted).
    public func responds(to selector: ObjCSelector) -> Bool { atr_responds(pointer, selector.pointer) != 0 }

    // MARK: Messages

    /// `[self sel]` returning an object (nil: the method returned nil).
    public func send(_ selector: ObjCSelector) throws(ObjCError) -> ObjCObject? {
        var out: atr_id?
        try ObjCError.check(atr_send_object(pointer, selector.pointer, &out), selector)
        return ObjCObject(out)
    }

    public func send(_ selector: ObjCSelector, _ argument: ObjCObject?) throws(ObjCError) -> ObjCObject? {
        var out: atr_id?
        try ObjCError.check(atr_send_object_object(pointer, selector.pointer, argument?.pointer, &out), selector)
        return ObjCObject(out)
    }

    public func send(_ selector: ObjCSelector, _ argument: Int) throws(ObjCError) -> ObjCObject? {
        var out: atr_id?
        try ObjCError.check(atr_send_object_long(pointer, selector.pointer, argument, &out), selector)
        return ObjCObject(out)
    }

    /// `[self sel:a to:b from:c]` with a selector and two objects (`targetForAction:to:from:`).
    public func send(_ selector: ObjCSelector, _ a: ObjCSelector, _ b: ObjCObject?, _ c: ObjCObject?) throws(ObjCError) -> ObjCObject? {
        var out: atr_id?
        try ObjCError.check(atr_send_object_sel_object_object(pointer, selector.pointer, a.pointer, b?.pointer, c?.pointer, &out), selector)
        return ObjCObject(out)
    }

    public func sendVoid(_ selector: ObjCSelector) throws(ObjCError) {
        try ObjCError.check(atr_send_void(pointer, selector.pointer), selector)
    }

    public func sendVoid(_ selector: ObjCSelector, _ argument: ObjCObject?) throws(ObjCError) {
        try ObjCError.check(atr_send_void_object(pointer, selector.pointer, argument?.pointer), selector)
    }

    /// A method returning `NSInteger` (or another integer as wide).
    public func integer(_ selector: ObjCSelector) throws(ObjCError) -> Int {
        var out = 0
        try ObjCError.check(atr_send_long(pointer, selector.pointer, &out), selector)
        return out
    }

    public func bool(_ selector: ObjCSelector) throws(ObjCError) -> Bool {
        var out: Int32 = 0
        try ObjCError.check(atr_send_bool(pointer, selector.pointer, &out), selector)
        return out != 0
    }

    public func double(_ selector: ObjCSelector) throws(ObjCError) -> Double {
        var out = 0.0
        try ObjCError.check(atr_send_double(pointer, selector.pointer, &out), selector)
        return out
    }

    /// A method returning `NSRect`.
    public func rect(_ selector: ObjCSelector) throws(ObjCError) -> ObjCRect {
        var out = atr_rect()
        try ObjCError.check(atr_send_rect(pointer, selector.pointer, &out), selector)
        return ObjCRect(out)
    }

    /// `[self convertRect:rect toView:view]` (nil: to the window's coordinates).
    public func convert(_ rect: ObjCRect, to view: ObjCObject?) throws(ObjCError) -> ObjCRect {
        var out = atr_rect()
        try ObjCError.check(atr_send_convert_rect(pointer, rect.raw, view?.pointer, &out), "convertRect:toView:")
        return ObjCRect(out)
    }

    /// `-[NSMatrix cellFrameAtRow:column:]`.
    public func cellFrame(row: Int, column: Int) throws(ObjCError) -> ObjCRect {
        var out = atr_rect()
        try ObjCError.check(atr_send_cell_frame(pointer, row, column, &out), "cellFrameAtRow:column:")
        return ObjCRect(out)
    }

    /// `-[NSTableView rectOfRow:]`.
    public func rectOfRow(_ row: Int) throws(ObjCError) -> ObjCRect {
        var out = atr_rect()
        try ObjCError.check(atr_send_rect_of_row(pointer, row, &out), "rectOfRow:")
        return ObjCRect(out)
    }

    /// The rows of a table inside its visible rect (`rowsInRect:` of `visibleRect`).
    public func visibleRows() throws(ObjCError) -> Range<Int> {
        var first = 0
        var count = 0
        try ObjCError.check(atr_table_visible_rows(pointer, &first, &count), "rowsInRect:")
        return first..<(first + max(count, 0))
    }

    /// The real `valueForKeyPath:`; a missing key is `ObjCError.Code.raised` with `NSUnknownKeyException`.
    public func value(forKeyPath path: String) throws(ObjCError) -> ObjCObject? {
        var out: atr_id?
        let status = path.withCString { atr_value_for_key_path(pointer, $0, &out) }
        try ObjCError.check(status, "valueForKeyPath:")
        return ObjCObject(out)
    }

    // MARK: Foundation values

    /// The text of an `NSString`; nil for any other object.
    public var string: String? { atr_string_utf8(pointer).map { String(cString: $0) } }

    /// The object as a Swift value: strings, numbers (a `BOOL` as `Bool`), arrays of those; any
    /// other object stays an object.
    public var value: ObjCValue {
        if let s = string { return .string(s) }
        let type = atr_number_type(pointer)
        if type != 0 {
            switch UInt8(bitPattern: type) {
            case UInt8(ascii: "c"), UInt8(ascii: "C"), UInt8(ascii: "B"): return .bool(atr_number_long(pointer) != 0)
            case UInt8(ascii: "f"), UInt8(ascii: "d"): return .double(atr_number_double(pointer))
            default: return .integer(Int(atr_number_long(pointer)))
            }
        }
        if atr_is_array(pointer) != 0 {
            let count = atr_array_count(pointer)
            return .array((0..<max(count, 0)).compactMap { ObjCObject(atr_array_at(pointer, $0)) })
        }
        return .object(self)
    }

    /// The items of an `NSArray` (one call for all); nil for any other object.
    public var arrayItems: [ObjCObject]? {
        var buffer = [UnsafeMutableRawPointer?](repeating: nil, count: 64)
        var count = buffer.withUnsafeMutableBufferPointer { atr_array_items(pointer, $0.baseAddress, 64) }
        guard count >= 0 else { return nil }
        if count > 64 {
            buffer = [UnsafeMutableRawPointer?](repeating: nil, count: count)
            count = buffer.withUnsafeMutableBufferPointer { atr_array_items(pointer, $0.baseAddress, count) }
        }
        return buffer.prefix(count).compactMap { ObjCObject($0) }
    }

    /// Of the array `[self selector]` answers, how many items before `child` have a class named
    /// `name` (all of them when `child` is not there; 0 when the answer is no array or the send
    /// raises): a sibling count in one call, nothing copied out.
    public func countOfClass(named name: String, before child: ObjCObject, in selector: ObjCSelector) -> Int {
        name.withCString { atr_same_class_before(pointer, selector.pointer, child.pointer, $0) }
    }

    /// An autoreleased `NSString`.
    public static func string(_ text: String) -> ObjCObject { ObjCObject(text.withCString { atr_string($0) })! }

    public func retain() { _ = atr_retain(pointer) }
    public func release() { atr_release(pointer) }
}

/// What an Objective-C object is as a Swift value.
public enum ObjCValue {
    case string(String)
    case bool(Bool)
    case integer(Int)
    case double(Double)
    case array([ObjCObject])
    case object(ObjCObject)
}

/// `NSRect`: AppKit's origin is at the bottom left.
public struct ObjCRect: Hashable, Sendable {
    public var x, y, width, height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    init(_ r: atr_rect) { self.init(x: r.x, y: r.y, width: r.width, height: r.height) }
    var raw: atr_rect { atr_rect(x: x, y: y, width: width, height: height) }
}

/// Runs `body` inside an autorelease pool of its own: what it autoreleases is released after.
public func withAutoreleasePool<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
    let pool = atr_pool_push()
    defer { atr_pool_pop(pool) }
    return try body()
}
