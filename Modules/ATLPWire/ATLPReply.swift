public import EventModel

/// The handler's answer: one frame, or an error.
public enum ATLPReply: Sendable, Hashable {
    case frame(ATLPFrame)
    /// A frame with its wire bytes, encoded once to be sent many times (a cached `RULES`).
    case encoded(ATLPFrame, [UInt8])
    /// Answered as `ERR`; codes that close (`closesConnection`) close the connection after it.
    case error(ATLPErrorCode, String)

    /// `ACK {"batch":B,"stored":s,"duplicates":d,"rejected":r}`; send only once durable.
    public static func ack(batch: JSONValue, stored: Int, duplicates: Int, rejected: Int) -> ATLPReply {
        .frame(BatchAck(batch: batch, stored: stored, duplicates: duplicates, rejected: rejected).frame)
    }

    /// `RULES {"etag":E,"rules":[...]}`, with `"sampleRate":R` when given and `"snapshots":true`
    /// while circle mode is on.
    public static func rules(etag: String, rules: [JSONValue], sampleRate: Double? = nil, snapshots: Bool = false)
        -> ATLPReply
    {
        .frame(RulesUpdate.changed(etag: etag, rules: rules, sampleRate: sampleRate, snapshots: snapshots).frame)
    }

    /// `RULES {"etag":E,"unchanged":true}`: the client's rules (etag `E`) are current;
    /// `"snapshots":true` while circle mode is on.
    public static func rulesUnchanged(etag: String, snapshots: Bool = false) -> ATLPReply {
        .frame(RulesUpdate.unchanged(etag: etag, snapshots: snapshots).frame)
    }

    /// `ACK {"snapshot":S}` for `SNAPSHOT`: S is the stored snapshot's id.
    public static func snapshotStored(id: Int64) -> ATLPReply {
        .frame(SnapshotAck(snapshot: id).frame)
    }

    /// `ACK {"stored":n}` for `PUBLISH`.
    public static func published(stored: Int) -> ATLPReply {
        .frame(PublishAck(stored: stored).frame)
    }

    /// The frame sent on the wire.
    public var wireFrame: ATLPFrame {
        switch self {
        case .frame(let f), .encoded(let f, _): return f
        case .error(let code, let message): return .error(code, message)
        }
    }

    /// The bytes sent on the wire (encoded now unless they were already).
    public var wireBytes: [UInt8] {
        if case .encoded(_, let bytes) = self { return bytes }
        return wireFrame.encoded
    }

    /// `reply` with its bytes encoded now, for sending many times.
    public static func encoding(_ reply: ATLPReply) -> ATLPReply {
        .encoded(reply.wireFrame, reply.wireBytes)
    }
}
