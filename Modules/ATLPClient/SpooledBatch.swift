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

    static func sequence(ofFile name: String) -> UInt64? {
        guard name.hasPrefix("batch-"), name.hasSuffix(".log") else { return nil }
        return UInt64(name.dropFirst(6).dropLast(4))
    }
}
