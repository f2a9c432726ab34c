/// A statement's parameters as one-dimensional arrays in PostgreSQL's binary format (what
/// `array_send` writes and `array_recv` reads), all in one buffer: the group commit's columns
/// travel without quoting or escaping on our side and without text parsing on the server's.
///
/// Each array: dimensions (int32, 1, or 0 when empty), has-nulls flag (int32), element type OID
/// (int32), then per dimension its length and lower bound 1 (int32 each), then each element as
/// its byte length (int32, -1 for NULL) and its bytes; integers big-endian. The element type
/// must be the one the statement declares (`$1::text[]` takes text elements, OID 25).
struct PostgresBinaryArrays {
    /// Every parameter's bytes, one after the other.
    private(set) var bytes: [UInt8] = []
    /// Where each parameter starts in `bytes`, and its length.
    private(set) var ranges: [Range<Int>] = []

    enum ElementType: Int32 {
        case int8 = 20, int4 = 23, text = 25
    }

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    /// Appends a `text[]` parameter; nil elements are NULL. Text goes as its UTF-8 bytes.
    mutating func text<C: Collection>(_ values: C) where C.Element == String? {
        array(.text, values) { a, v in
            var v = v
            v.withUTF8 { u in
                a.int32(Int32(u.count))
                a.bytes.append(contentsOf: u)
            }
        }
    }

    mutating func text<C: Collection>(_ values: C) where C.Element == String {
        text(values.lazy.map(Optional.some))
    }

    /// Appends a `bigint[]` parameter; nil elements are NULL.
    mutating func int8<C: Collection>(_ values: C) where C.Element == Int64? {
        array(.int8, values) { a, v in
            a.int32(8)
            a.bytes.appendBigEndian(v)
        }
    }

    mutating func int8<C: Collection>(_ values: C) where C.Element == Int64 {
        int8(values.lazy.map(Optional.some))
    }

    /// Appends an `int[]` parameter (values must fit in 32 bits).
    mutating func int4<C: Collection>(_ values: C) where C.Element == Int {
        array(.int4, values.lazy.map(Optional.some)) { a, v in
            a.int32(4)
            a.int32(Int32(v))
        }
    }

    /// Appends one array: the header, then each element through `element` (nil as NULL).
    private mutating func array<C: Collection, T>(_ type: ElementType, _ values: C, _ element: (inout Self, T) -> Void)
    where C.Element == T? {
        let start = bytes.count
        int32(values.isEmpty ? 0 : 1)
        let flags = bytes.count
        int32(0)
        int32(type.rawValue)
        if !values.isEmpty {
            int32(Int32(values.count))
            int32(1)
        }
        var sawNull = false
        for v in values {
            if let v {
                element(&self, v)
            } else {
                int32(-1)
                sawNull = true
            }
        }
        if sawNull { bytes[flags + 3] = 1 }
        ranges.append(start..<bytes.count)
    }

    private mutating func int32(_ v: Int32) { bytes.appendBigEndian(v) }
}

extension [UInt8] {
    /// Appends `v`'s bytes, most significant first (PostgreSQL's binary formats).
    mutating func appendBigEndian<T: FixedWidthInteger>(_ v: T) {
        Swift.withUnsafeBytes(of: v.bigEndian) { append(contentsOf: $0) }
    }
}
