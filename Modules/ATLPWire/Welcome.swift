import EventModel

/// The collector's `WELCOME`.
public struct Welcome: Sendable, Hashable {
    public var protocolVersion: Int
    /// The largest payload the collector accepts.
    public var maxFrame: Int

    public init(protocolVersion: Int, maxFrame: Int) {
        self.protocolVersion = protocolVersion
        self.maxFrame = maxFrame
    }

    /// Reads a `WELCOME` frame; nil when it is not one or lacks a member.
    public init?(_ frame: ATLPFrame) {
        guard frame.verb == "WELCOME", let p = frame["protocol"]?.intValue, let m = frame["maxFrame"]?.intValue else {
            return nil
        }
        self.init(protocolVersion: Int(p), maxFrame: Int(m))
    }

    /// The frame: `WELCOME {"protocol":1,"maxFrame":N}`.
    public var frame: ATLPFrame {
        ATLPFrame(verb: "WELCOME", body: JSONObject([("protocol", .int(Int64(protocolVersion))), ("maxFrame", .int(Int64(maxFrame)))]))
    }
}
