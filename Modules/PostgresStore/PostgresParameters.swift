import StoreSQL

/// A statement's `SQLValue`s as PostgreSQL binary parameters, all in one buffer: each with the
/// type OID it is sent as, so the server reads `bigint`, `double precision`, `text` and `bytea`
/// without a cast in the statement (`$1::bigint`) and without text parsing.
struct PostgresParameters {
    /// `int8` 20, `float8` 701, `text` 25, `bytea` 17; 0 (the server infers it) for NULL.
    private(set) var types: [UInt32] = []
    /// Every parameter's bytes, one after the other.
    private(set) var bytes: [UInt8] = []
    /// Where each parameter lies in `bytes`; nil for NULL.
    private(set) var ranges: [Range<Int>?] = []

    init(_ values: [SQLValue]) {
        for v in values {
            let start = bytes.count
            switch v {
            case .null:
                types.append(0)
                ranges.append(nil)
                continue
            case .int(let i):
                types.append(20)
                withUnsafeBytes(of: i.bigEndian) { bytes.append(contentsOf: $0) }
            case .double(let d):
                types.append(701)
                withUnsafeBytes(of: d.bitPattern.bigEndian) { bytes.append(contentsOf: $0) }
            case .text(let t):
                // `text`'s binary form is its bytes in the client encoding (UTF-8).
                types.append(25)
                bytes.append(contentsOf: t.utf8)
            case .blob(let b):
                types.append(17)
                bytes.append(contentsOf: b)
            }
            ranges.append(start..<bytes.count)
        }
        // A byte past the last value, so the buffer has an address even when every value is empty.
        bytes.append(0)
    }
}
