public import ATLPWire

/// Who may send events and who may publish rules, decided on `HELLO`.
public struct CollectorAccess: Sendable, Hashable {
    /// When set, `HELLO` must carry it (or the admin token), else `unauthorized`.
    public var ingestToken: String?
    /// When set, a `HELLO` carrying it makes an admin session, the only kind that may `PUBLISH`.
    /// When nil nobody may publish: an open collector must not take rules from anyone.
    public var adminToken: String?
    /// Whether a `SNAPSHOT` is stored while circle mode is off for its app: from agents started
    /// with `--snapshots`, which send pictures unasked (`serve --accept-snapshots`). Off, only
    /// circle mode (the studio's, or `circle on`) lets pictures in, so an open collector's disk
    /// is not filled by anyone who can connect (docs/security.md).
    public var acceptsUnaskedSnapshots: Bool

    public init(ingestToken: String? = nil, adminToken: String? = nil, acceptsUnaskedSnapshots: Bool = false) {
        self.ingestToken = ingestToken
        self.adminToken = adminToken
        self.acceptsUnaskedSnapshots = acceptsUnaskedSnapshots
    }

    /// Accepts, as admin or not, or refuses a `HELLO`; authenticated when it carried a token
    /// that is checked (the admin token, or the ingest token where one is set).
    public func decide(_ hello: Hello) -> HelloDecision {
        let isAdmin = hello.token.map(isAdmin(token:)) ?? false
        if let ingestToken, !isAdmin {
            guard let token = hello.token else {
                return .unauthorized("this collector needs a token: add \"token\" to HELLO (the agent's --token)")
            }
            guard Self.equal(token, ingestToken) else {
                return .unauthorized("the token in HELLO is wrong; use the collector's --ingest-token")
            }
        }
        return .accept(admin: isAdmin, authenticated: isAdmin || ingestToken != nil)
    }

    /// Whether `token` is the admin token (false when there is none), compared in constant time.
    public func isAdmin(token: String) -> Bool {
        adminToken.map { Self.equal(token, $0) } ?? false
    }

    /// Compares without stopping at the first difference, so timing does not reveal the token.
    static func equal(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var diff = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) {
            diff |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0)
        }
        return diff == 0
    }
}
