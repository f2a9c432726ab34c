import EventModel

/// The collector's answer to `SNAPSHOT`: `ACK {"snapshot":S}`, S the stored snapshot's id.
public struct SnapshotAck: Sendable, Hashable {
    public var snapshot: Int64

    public init(snapshot: Int64) {
        self.snapshot = snapshot
    }

    /// Reads the `ACK`; nil when it is not one or lacks an integer `snapshot`.
    public init?(_ frame: ATLPFrame) {
        guard frame.verb == "ACK", case .int(let id)? = frame["snapshot"] else { return nil }
        snapshot = id
    }

    public var frame: ATLPFrame {
        ATLPFrame(verb: "ACK", body: JSONObject([("snapshot", .int(snapshot))]))
    }
}
