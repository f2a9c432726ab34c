import EventModel

/// The collector's answer to `PUBLISH`: `ACK {"stored":n}`, n the number of rules stored.
public struct PublishAck: Sendable, Hashable {
    public var stored: Int

    public init(stored: Int) {
        self.stored = stored
    }

    /// Reads the `ACK`; nil when it is not one or lacks an integer `stored`.
    public init?(_ frame: ATLPFrame) {
        guard frame.verb == "ACK", let n = frame["stored"]?.intValue else { return nil }
        stored = Int(n)
    }

    public var frame: ATLPFrame {
        ATLPFrame(verb: "ACK", body: JSONObject([("stored", .int(Int64(stored)))]))
    }
}
