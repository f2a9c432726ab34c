/// A sealed batch on disk: its stable id (the file's sequence) and how many events it holds.
struct SpooledBatch: Sendable, Hashable {
    let sequence: UInt64
    let events: Int
    let bytes: Int

    var fileName: String { SpooledBatch.fileName(sequence) }

    static func fileName(_ sequence: UInt64) -> String {
        let digits = String(sequence)
        return "batch-" + String(repeating: "0", count: max(0, 20 - digits.count)) + digits + ".log"
    }

    /// The highest batch number. Batch ids stay within a signed 64-bit integer, so every store and
    /// tool reads them as numbers, and the numbers after the last one found never overflow.
    static let maxSequence = UInt64(Int64.max)

    /// What a file in the spool folder is, by its name.
    enum SpoolFile: Equatable {
        /// Not a batch (`open.log`, `lock`, `undeliverable/`).
        case other
        /// A batch file and its number.
        case batch(UInt64)
        /// Named as a batch, but its number cannot be used; why.
        case unusable(String)
    }

    static func kind(ofFile name: String) -> SpoolFile {
        guard name.hasPrefix("batch-"), name.hasSuffix(".log"), name.count >= 10 else { return .other }
        let digits = name.dropFirst(6).dropLast(4)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            return .unusable("'\(digits)' is not a batch number (decimal digits)")
        }
        guard let sequence = UInt64(digits), sequence <= maxSequence else {
            return .unusable("its batch number \(digits) is out of range (at most \(maxSequence))")
        }
        return .batch(sequence)
    }
}
