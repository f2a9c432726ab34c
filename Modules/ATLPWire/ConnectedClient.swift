/// An accepted connection: who it is and what it may do.
public struct ConnectedClient: Sendable, Hashable {
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
