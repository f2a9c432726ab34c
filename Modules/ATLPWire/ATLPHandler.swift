/// What the collector plugs into `ATLPService` (module ATLPServer): it decides on `HELLO` and answers
/// `EVENTS`, `CONFIG` and `PUBLISH`. Framing, `HELLO` ordering, `PING`, `BYE`,
/// `bad-json`, `unknown-verb`, `forbidden` and required-field checks are the server's.
///
/// Both methods run on the server's worker threads, never on its I/O thread, so they may
/// block (an SQLite commit). Calls for one connection never overlap and replies keep the
/// order of requests; calls for different connections run concurrently.
public protocol ATLPHandler: Sendable {
    /// Accepts or refuses a well-formed `HELLO` (protocol 1, an `appKey`).
    func hello(_ hello: Hello, peer: String) -> HelloDecision
    /// Answers one request of an accepted client.
    func handle(_ request: ATLPRequest, client: ConnectedClient) -> ATLPReply
    /// Answers an `EVENTS` request whose events the server read straight from the frame's bytes;
    /// by default as `handle(events.request, client:)`, with the events as generic values.
    func handle(events: IncomingEvents, client: ConnectedClient) -> ATLPReply
    /// Called once per connection when it closes, for bookkeeping; default does nothing.
    func closed(client: ConnectedClient?, peer: String)
}

extension ATLPHandler {
    public func closed(client: ConnectedClient?, peer: String) {}

    public func handle(events: IncomingEvents, client: ConnectedClient) -> ATLPReply {
        handle(events.request, client: client)
    }
}

/// The handler's answer to a `HELLO`.
public enum HelloDecision: Sendable, Hashable {
    /// Welcome the client; `admin` lets it `PUBLISH`. `authenticated`: the `HELLO` proved a
    /// token the handler checks (false where any `HELLO` is welcome, e.g. a collector without an
    /// ingest token): only an authenticated `HELLO` clears its address's failed attempts from the
    /// server's throttle, so guessing the admin token on an open collector stays slowed down.
    case accept(admin: Bool, authenticated: Bool = true)
    /// Refuse with `unauthorized` (closes) and a message for the client's logs.
    case unauthorized(String)
}
