import ATLPWire
import EventModel

/// One unit of work for a connection, in arrival order: a payload, or the framing error
/// that ended its stream (answered in order, after the requests read before it).
enum InboundItem: Sendable {
    case payload([UInt8])
    case framingError(ATLPError)
}

/// What answering one item produced: the bytes to send, the client after it (nil until a
/// `HELLO` is accepted), whether to close.
struct Outcome: Sendable {
    var bytes: [UInt8]
    var client: ConnectedClient?
    var close: Bool
    /// The ERR code sent, for the statistics.
    var error: ATLPErrorCode? = nil
    /// A `HELLO` accepted with a token the handler checked (`HelloDecision.accept`).
    var authenticated = false

    /// A failed authentication, whatever the verb: a wrong token on `HELLO`, or `PUBLISH`
    /// without the admin token (on a collector without an ingest token, each `HELLO` with a
    /// guessed admin token is welcome, and only its `PUBLISH` fails).
    var failedAuthentication: Bool { error == .unauthorized || error == .forbidden }
}

/// The server's protocol logic for one request, run on a worker thread. Pure apart from
/// the handler calls, so a connection's phase moves only through its serial outcomes.
struct RequestProcessor: Sendable {
    let handler: any ATLPHandler
    let maxFrame: Int
    /// The largest `SNAPSHOT` payload, announced in `WELCOME` as `maxSnapshot`.
    let maxSnapshotFrame: Int

    /// Answers `item` for a connection whose `HELLO` was accepted as `client` (nil: not yet):
    /// the frame is read, a `HELLO` welcomed, `PING` and `BYE` answered here, and every other
    /// request decoded by ATLPWire's codec and answered by the handler.
    func process(_ item: InboundItem, client: ConnectedClient?, connectionID: UInt64, peer: String) -> Outcome {
        let payload: [UInt8]
        let verb: String
        let frame: ATLPFrame
        do {
            (payload, verb) = try Self.payload(of: item, client: client)
            // EVENTS, the bulk of the traffic, is read straight from the bytes (below).
            frame = verb == "EVENTS" ? ATLPFrame(verb: verb, body: nil) : ATLPFrame(verb: verb, body: try ATLPFrame.body(of: payload, verb: verb))
        } catch {
            return fail(error, client: client)
        }
        guard let client else { return welcome(frame, connectionID: connectionID, peer: peer) }
        let reply: ATLPReply
        switch frame.verb {
        case "PING": return Outcome(bytes: ATLPFrame(verb: "PONG").encoded, client: client, close: false)
        case "BYE": return Outcome(bytes: ATLPFrame(verb: "BYE").encoded, client: client, close: true)
        case "PUBLISH" where !client.isAdmin:
            return fail(ATLPError(.forbidden, "PUBLISH needs a connection whose HELLO carried the admin token"), client: client)
        case "EVENTS":
            do throws(ATLPError) {
                reply = handler.handle(events: try ATLPRequest.events(payload: payload), client: client)
            } catch {
                return fail(error, client: client)
            }
        default:
            let request: ATLPRequest
            do {
                request = try ATLPRequest(verb: frame.verb, body: frame.body ?? JSONObject())
            } catch {
                return fail(error, client: client)
            }
            reply = handler.handle(request, client: client)
        }
        var code: ATLPErrorCode?
        if case .error(let c, _) = reply { code = c }
        return Outcome(bytes: reply.wireBytes, client: client, close: code?.closesConnection ?? false, error: code)
    }

    /// The item's payload and verb, the verb allowed in this phase (`HELLO` first, and once)
    /// before its body is parsed; a framing error is thrown as it came.
    private static func payload(of item: InboundItem, client: ConnectedClient?) throws(ATLPError) -> ([UInt8], String) {
        let payload: [UInt8]
        switch item {
        case .framingError(let error): throw error
        case .payload(let p): payload = p
        }
        let verb = try ATLPFrame.verb(of: payload)
        switch (client, verb) {
        case (nil, let v) where v != "HELLO":
            throw ATLPError(.helloRequired, "\(v) before HELLO: the first frame must be HELLO {\"protocol\":1,\"appKey\":...}")
        case (.some, "HELLO"):
            throw ATLPError(.helloRequired, "a second HELLO on one connection; open a new connection instead")
        default: break
        }
        return (payload, verb)
    }

    /// The answer to a `HELLO`: `WELCOME` and the new client, or `unauthorized`.
    private func welcome(_ frame: ATLPFrame, connectionID: UInt64, peer: String) -> Outcome {
        let hello: Hello
        do {
            hello = try Hello(body: frame.body ?? JSONObject())
        } catch {
            return fail(error, client: nil)
        }
        switch handler.hello(hello, peer: peer) {
        case .accept(let admin, let authenticated):
            let accepted = ConnectedClient(connectionID: connectionID, peer: peer, hello: hello, isAdmin: admin)
            let welcome = Welcome(protocolVersion: 1, maxFrame: maxFrame, maxSnapshot: maxSnapshotFrame).frame
            return Outcome(bytes: welcome.encoded, client: accepted, close: false, authenticated: authenticated)
        case .unauthorized(let message):
            return fail(ATLPError(.unauthorized, message), client: nil)
        }
    }

    private func fail(_ error: ATLPError, client: ConnectedClient?) -> Outcome {
        Outcome(bytes: error.frame.encoded, client: client, close: error.code.closesConnection, error: error.code)
    }
}
