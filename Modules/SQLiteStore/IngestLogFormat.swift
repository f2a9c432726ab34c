/// The bytes of the ingest log `PATH-ingest` (layout 2; docs/schema.md, "The ingest log"): a
/// header naming the database the log belongs to, then records, each a batch at its position
/// with the counts its `ACK` gave, appended in position order. All integers little-endian.
///
/// - Header, 64 bytes: `ATINGEST` (8), the layout (4), the log id's length (2) and UTF-8 (at
///   most 40), zeros to byte 56, the checksum of bytes 0..<56 (8).
/// - Record: `ATRC` (4), the payload's length (4), the position (8), stored (4), duplicates (4),
///   the checksum of bytes 4..<24 and the payload (8), then the payload (`LoggedBatch`).
///
/// A record is whole when its magic, length and checksum hold and its position follows the one
/// before; the first that is not ends what a reader takes from the file (a write a crash cut
/// short, or damage: `IngestRecovery` tells them apart by the acknowledged mark).
enum IngestLogFormat {
    static let layout: UInt32 = 2
    static let headerSize = 64
    static let recordHeaderSize = 32
    static let fileMagic = Array("ATINGEST".utf8)
    static let recordMagic = Array("ATRC".utf8)
    static let maxLogIDBytes = 40
    /// A payload larger than this is not a record (a length read from damage): far above any
    /// batch the wire admits.
    static let maxPayload = 1 << 30

    /// The header of a log of `logID`.
    static func header(logID: String) -> [UInt8] {
        var out = fileMagic
        put(UInt64(layout), 4, &out)
        let id = Array(logID.utf8.prefix(maxLogIDBytes))
        put(UInt64(id.count), 2, &out)
        out += id
        out += [UInt8](repeating: 0, count: 56 - out.count)
        put(checksum(out[...]), 8, &out)
        return out
    }

    /// What a header says: its layout and log id; nil when the bytes are not a header.
    static func readHeader(_ bytes: [UInt8]) -> (layout: UInt32, logID: String)? {
        guard bytes.count >= headerSize, Array(bytes[0..<8]) == fileMagic,
            get(bytes, 56, 8) == checksum(bytes[0..<56])
        else { return nil }
        let length = Int(get(bytes, 12, 2))
        guard length <= maxLogIDBytes else { return nil }
        return (UInt32(get(bytes, 8, 4)), String(decoding: bytes[14..<(14 + length)], as: UTF8.self))
    }

    /// Appends the record of one batch to `out`.
    static func appendRecord(position: Int64, stored: Int, duplicates: Int, payload: [UInt8], to out: inout [UInt8]) {
        let start = out.count
        out += recordMagic
        put(UInt64(payload.count), 4, &out)
        put(UInt64(bitPattern: position), 8, &out)
        put(UInt64(stored), 4, &out)
        put(UInt64(duplicates), 4, &out)
        var sum = Checksum()
        sum.add(out[(start + 4)...])
        sum.add(payload[...])
        put(sum.value, 8, &out)
        out += payload
    }

    /// A record's header fields, read from its first 32 bytes; nil when they are not a record's.
    struct RecordHeader {
        let payloadLength: Int
        let position: Int64
        let stored: Int
        let duplicates: Int
        let checksum: UInt64

        init?(_ bytes: ArraySlice<UInt8>) {
            let b = Array(bytes)
            guard b.count >= IngestLogFormat.recordHeaderSize, Array(b[0..<4]) == IngestLogFormat.recordMagic else { return nil }
            payloadLength = Int(IngestLogFormat.get(b, 4, 4))
            position = Int64(bitPattern: IngestLogFormat.get(b, 8, 8))
            stored = Int(IngestLogFormat.get(b, 16, 4))
            duplicates = Int(IngestLogFormat.get(b, 20, 4))
            checksum = IngestLogFormat.get(b, 24, 8)
            guard payloadLength <= IngestLogFormat.maxPayload, position > 0 else { return nil }
        }

        /// Whether `payload` is the one this header was written with (`fields`: its bytes 4..<24).
        func holds(fields: ArraySlice<UInt8>, payload: UnsafeRawBufferPointer) -> Bool {
            var sum = Checksum()
            sum.add(fields)
            sum.add(payload)
            return sum.value == checksum
        }
    }

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var sum = Checksum()
        sum.add(bytes)
        return sum.value
    }

    /// A 64-bit checksum of a byte stream (a multiply-rotate mix per byte, kept simple: a record
    /// is checked at most twice, at append and at open). Detects a torn or scribbled record; not
    /// a defence against someone forging one.
    struct Checksum {
        private(set) var value: UInt64 = 0x9E37_79B9_7F4A_7C15

        mutating func add(_ bytes: ArraySlice<UInt8>) {
            bytes.withUnsafeBytes { add($0) }
        }

        mutating func add(_ bytes: UnsafeRawBufferPointer) {
            var h = value
            var i = 0
            let count = bytes.count
            while i + 8 <= count {
                let word = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                h = ((h ^ word) &* 0xC2B2_AE3D_27D4_EB4F)
                h = (h << 31) | (h >> 33)
                i += 8
            }
            while i < count {
                h = (h ^ UInt64(bytes[i])) &* 0x0000_0100_0000_01B3
                i += 1
            }
            h ^= UInt64(count)
            h ^= h >> 29
            value = h &* 0x1656_67B1_9E37_79F9
        }
    }

    static func put(_ value: UInt64, _ bytes: Int, _ out: inout [UInt8]) {
        for i in 0..<bytes { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }

    static func get(_ bytes: [UInt8], _ offset: Int, _ count: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<count { v |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
        return v
    }
}
