import EventModel
import Tracker
import Transport

/// The collector as a tracker's rules source: one short ATLP/1 connection per request,
/// `HELLO` then `CONFIG {"etag":E}`, answered by `RULES` (wire.md §2). Blocking, with
/// `timeout` on the connect and every read; called on the `ConfigRefresher`'s thread.
public struct ATLPRulesSource: RulesSource {
    public var address: SocketAddress
    public var hello: Hello
    public var timeout: Duration

    public init(address: SocketAddress, hello: Hello, timeout: Duration = .seconds(5)) {
        self.address = address
        self.hello = hello
        self.timeout = timeout
    }

    public func fetch(etag: String?) throws -> RulesAnswer {
        let connection = try ATLPConnection(to: address, hello: hello, timeout: timeout)
        defer { connection.close() }
        var body = JSONObject()
        if let etag { body["etag"] = .string(etag) }
        let reply = try connection.request(ATLPFrame(verb: "CONFIG", body: body))
        return try Self.answer(reply, from: address)
    }

    /// Reads a `RULES` frame: `{"etag":E,"unchanged":true}` or `{"etag":E,"rules":[...],"sampleRate":R}`.
    static func answer(_ reply: ATLPFrame, from address: SocketAddress) throws(TransportError) -> RulesAnswer {
        guard reply.verb == "RULES", let body = reply.body, let etag = body["etag"]?.stringValue else {
            throw TransportError(
                .protocolViolation, "expected RULES {\"etag\":...} from \(address), got \(reply.description.prefix(200))")
        }
        if case .bool(true)? = body["unchanged"] { return .unchanged(etag: etag) }
        guard let rules = RemoteRules(json: .object(body)) else {
            throw TransportError(
                .protocolViolation, "RULES from \(address) has no \"rules\" array: \(reply.description.prefix(200))")
        }
        return .rules(rules)
    }
}
