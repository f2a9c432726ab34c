import EventModel

/// What the collector plugs into `ATLPServer`: it decides on `HELLO` and answers
/// `EVENTS`, `CONFIG` and `PUBLISH`. Framing, `HELLO` ordering, `PING`, `BYE`,
/// `bad-json`, `unknown-verb`, `forbidden` and required-field checks are the server's.
///
/// Both methods run on the server's worker threads, never on its I/O thread, so they may
/// block (an SQLite commit). Calls for one connection never overlap and replies keep the
/// order of requests; calls for different connections run concurrently.
public protocol ATLPHandler: Sendable {
    /// Accepts or refuses a well-formed `HELLO` (protocol 1, an `appKey`).
    func hello(_ hello: Hello, peer: String) -> HelloDecision
    /// Answers one request of an accepted session.
    func handle(_ request: ATLPRequest, session: Session) -> ATLPReply
    /// Called once per connection when it closes, for bookkeeping; default does nothing.
    func closed(session: Session?, peer: String)
}

extension ATLPHandler {
    public func closed(session: Session?, peer: String) {}
}

/// A `HELLO` body, checked: `protocol` is 1 and `appKey` a non-empty string.
public struct Hello: Sendable, Hashable {
    public var appKey: String
    public var appVersion: String?
    public var agent: String?
    public var token: String?
    /// The whole body, for members this version does not know.
    public var body: JSONObject

    public init(appKey: String, appVersion: String? = nil, agent: String? = nil, token: String? = nil) {
        self.appKey = appKey
        self.appVersion = appVersion
        self.agent = agent
        self.token = token
        var o = JSONObject()
        o["protocol"] = 1
        o["appKey"] = .string(appKey)
        if let appVersion { o["appVersion"] = .string(appVersion) }
        if let agent { o["agent"] = .string(agent) }
        if let token { o["token"] = .string(token) }
        body = o
    }

    /// Reads a `HELLO` body; the error is `bad-request` naming the field at fault.
    public init(body: JSONObject) throws(ATLPError) {
        guard let p = body["protocol"] else {
            throw ATLPError(.badRequest, "HELLO needs \"protocol\":1")
        }
        guard p.intValue == 1 else {
            throw ATLPError(.badRequest, "HELLO asks for protocol \(p.jsonText); this side speaks protocol 1 only")
        }
        func optional(_ key: String) throws(ATLPError) -> String? {
            guard let v = body[key] else { return nil }
            guard case .string(let s) = v else {
                throw ATLPError(.badRequest, "HELLO \"\(key)\" must be a string, found \(v.kindDescription)")
            }
            return s
        }
        guard let key = try optional("appKey"), !key.isEmpty else {
            throw ATLPError(.badRequest, "HELLO needs \"appKey\": a non-empty string naming the app")
        }
        appKey = key
        appVersion = try optional("appVersion")
        agent = try optional("agent")
        token = try optional("token")
        self.body = body
    }
}

/// The handler's answer to a `HELLO`.
public enum HelloDecision: Sendable, Hashable {
    /// Welcome the client; `admin` lets it `PUBLISH`.
    case accept(admin: Bool)
    /// Refuse with `unauthorized` (closes) and a message for the client's logs.
    case unauthorized(String)
}

/// An accepted connection: who it is and what it may do.
public struct Session: Sendable, Hashable {
    /// Unique per server run; stable for the connection's life.
    public var connectionID: UInt64
    /// `ip:port` of the client (`[ip]:port` for IPv6).
    public var peer: String
    public var hello: Hello
    public var isAdmin: Bool

    public init(connectionID: UInt64, peer: String, hello: Hello, isAdmin: Bool) {
        self.connectionID = connectionID
        self.peer = peer
        self.hello = hello
        self.isAdmin = isAdmin
    }

    public var appKey: String { hello.appKey }
    public var appVersion: String? { hello.appVersion }
}

/// A request the handler answers, with its body's required fields checked by the server.
public enum ATLPRequest: Sendable, Hashable {
    /// `EVENTS {"batch":B,"sentAt":T,"events":[...]}`: `batch` a string or integer (echoed in
    /// `ACK`), `sentAt` the client's clock in ms when given, `events` an array, possibly empty;
    /// each event still to be validated (wire.md §3).
    case events(batch: JSONValue, events: [JSONValue], sentAt: Int64?)
    /// `CONFIG {...}`: the body as sent (members are not required; see docs/wire.md).
    case config(JSONObject)
    /// `PUBLISH {"rules":[...],"sampleRate":R}` on an admin session: the rules as sent, to be
    /// validated, and the sampling rate (0…1) when given.
    case publish(rules: [JSONValue], sampleRate: Double?)

    /// The request's verb.
    public var verb: String {
        switch self {
        case .events: return "EVENTS"
        case .config: return "CONFIG"
        case .publish: return "PUBLISH"
        }
    }
}

/// The handler's answer: one frame, or an error.
public enum ATLPReply: Sendable, Hashable {
    case frame(ATLPFrame)
    /// Answered as `ERR`; codes that close (`closesConnection`) close the connection after it.
    case error(ATLPErrorCode, String)

    /// `ACK {"batch":B,"stored":s,"duplicates":d,"rejected":r}`; send only once durable.
    public static func ack(batch: JSONValue, stored: Int, duplicates: Int, rejected: Int) -> ATLPReply {
        .frame(
            ATLPFrame(
                verb: "ACK",
                body: JSONObject([
                    ("batch", batch), ("stored", .int(Int64(stored))), ("duplicates", .int(Int64(duplicates))),
                    ("rejected", .int(Int64(rejected))),
                ])))
    }

    /// `RULES {"etag":E,"rules":[...]}`, with `"sampleRate":R` when given.
    public static func rules(etag: String, rules: [JSONValue], sampleRate: Double? = nil) -> ATLPReply {
        var body = JSONObject([("etag", .string(etag)), ("rules", .array(rules))])
        if let sampleRate { body["sampleRate"] = .double(sampleRate) }
        return .frame(ATLPFrame(verb: "RULES", body: body))
    }

    /// `RULES {"etag":E,"unchanged":true}`: the client's rules (etag `E`) are current.
    public static func rulesUnchanged(etag: String) -> ATLPReply {
        .frame(ATLPFrame(verb: "RULES", body: JSONObject([("etag", .string(etag)), ("unchanged", .bool(true))])))
    }

    /// `ACK {"stored":n}` for `PUBLISH`.
    public static func published(stored: Int) -> ATLPReply {
        .frame(ATLPFrame(verb: "ACK", body: JSONObject([("stored", .int(Int64(stored)))])))
    }

    /// The frame sent on the wire.
    public var wireFrame: ATLPFrame {
        switch self {
        case .frame(let f): return f
        case .error(let code, let message): return .error(code, message)
        }
    }
}
