public import EventModel

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

    /// `HELLO {...}` as a client sends it.
    public var frame: ATLPFrame { ATLPFrame(verb: "HELLO", body: body) }
}
