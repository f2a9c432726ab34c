public import EventModel

/// The collector's `ACK` of an `EVENTS` batch.
public struct BatchAck: Sendable, Hashable {
    public var batch: JSONValue
    public var stored: Int
    public var duplicates: Int
    public var rejected: Int

    public init(batch: JSONValue, stored: Int, duplicates: Int, rejected: Int) {
        self.batch = batch
        self.stored = stored
        self.duplicates = duplicates
        self.rejected = rejected
    }

    /// Reads an `ACK` body; nil when a count is missing.
    public init?(_ frame: ATLPFrame) {
        guard frame.verb == "ACK", let batch = frame["batch"], let s = frame["stored"]?.intValue,
            let d = frame["duplicates"]?.intValue, let r = frame["rejected"]?.intValue
        else { return nil }
        self.batch = batch
        stored = Int(s)
        duplicates = Int(d)
        rejected = Int(r)
    }

    public var frame: ATLPFrame {
        ATLPFrame(
            verb: "ACK",
            body: JSONObject([
                ("batch", batch), ("stored", .int(Int64(stored))), ("duplicates", .int(Int64(duplicates))),
                ("rejected", .int(Int64(rejected))),
            ]))
    }
}
