/// Rows for `COPY … FROM STDIN (FORMAT binary)`, in PostgreSQL's binary copy format: text goes
/// as its UTF-8 bytes, so tabs, newlines and backslashes need no escaping on our side and no
/// parsing on the server's.
///
/// The format: the signature `PGCOPY\n\377\r\n\0`, flags (int32 0) and header extension length
/// (int32 0); then per row its field count (int16) and per field its byte length (int32, -1 for
/// NULL) and bytes; then the trailer, int16 -1. Integers big-endian; `bigint` is 8 bytes, `int`
/// 4, `text` (and `json`) its UTF-8 bytes. Fields must come in the order and of the types the
/// COPY's column list names.
struct PostgresBinaryCopy {
    private(set) var bytes: [UInt8]

    init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity + 21)
        bytes.append(contentsOf: Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00])
        bytes.appendBigEndian(Int32(0))
        bytes.appendBigEndian(Int32(0))
    }

    /// Starts a row of `fields` fields.
    mutating func row(_ fields: Int) { bytes.appendBigEndian(Int16(fields)) }

    mutating func text(_ v: String?) {
        guard var v else { return null() }
        v.withUTF8 { u in
            bytes.appendBigEndian(Int32(u.count))
            bytes.append(contentsOf: u)
        }
    }

    mutating func int8(_ v: Int64?) {
        guard let v else { return null() }
        bytes.appendBigEndian(Int32(8))
        bytes.appendBigEndian(v)
    }

    mutating func int4(_ v: Int) {
        bytes.appendBigEndian(Int32(4))
        bytes.appendBigEndian(Int32(v))
    }

    private mutating func null() { bytes.appendBigEndian(Int32(-1)) }

    /// Appends the trailer, after the last row: the data is then ready for `PostgresConnection.copyIn`.
    mutating func end() { bytes.appendBigEndian(Int16(-1)) }
}
