import EventModel

/// The collector's `WELCOME`.
public struct Welcome: Sendable, Hashable {
    public var protocolVersion: Int
    /// The largest payload the collector accepts.
    public var maxFrame: Int
    /// The largest `SNAPSHOT` payload the collector accepts (it may exceed `maxFrame`); nil when
    /// the collector did not say (one that predates snapshots: then `maxFrame` applies).
    public var maxSnapshot: Int?

    public init(protocolVersion: Int, maxFrame: Int, maxSnapshot: Int? = nil) {
        self.protocolVersion = protocolVersion
        self.maxFrame = maxFrame
        self.maxSnapshot = maxSnapshot
    }

    /// Reads a `WELCOME` frame; nil when it is not one or lacks a member.
    public init?(_ frame: ATLPFrame) {
        guard frame.verb == "WELCOME", let p = frame["protocol"]?.intValue, let m = frame["maxFrame"]?.intValue else {
            return nil
        }
        self.init(protocolVersion: Int(p), maxFrame: Int(m), maxSnapshot: frame["maxSnapshot"]?.intValue.map { Int($0) })
    }

    /// The largest `SNAPSHOT` payload a client may send: `maxSnapshot`, else `maxFrame`.
    public var snapshotLimit: Int { maxSnapshot ?? maxFrame }

    /// The frame: `WELCOME {"protocol":1,"maxFrame":N}`, with `"maxSnapshot":N` when set.
    public var frame: ATLPFrame {
        var body = JSONObject([("protocol", .int(Int64(protocolVersion))), ("maxFrame", .int(Int64(maxFrame)))])
        if let maxSnapshot { body["maxSnapshot"] = .int(Int64(maxSnapshot)) }
        return ATLPFrame(verb: "WELCOME", body: body)
    }
}
