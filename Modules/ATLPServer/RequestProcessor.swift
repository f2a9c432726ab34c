import ATLPWire
import EventModel

/// One unit of work for a connection, in arrival order: a payload, or the framing error
/// that ended its stream (answered in order, after the requests read before it).
enum InboundItem: Sendable {
    case payload([UInt8])
    case framingError(ATLPError)
}

/// What answering one item produced: the bytes to send, the session after it (nil until a
/// `HELLO` is accepted), whether to close.
struct Outcome: Sendable {
    var bytes: [UInt8]
    var session: Session?
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

    static let verbs = ["HELLO", "EVENTS", "CONFIG", "PUBLISH", "SNAPSHOT", "PING", "BYE"]

    /// Answers `item` for a connection whose `HELLO` was accepted as `session` (nil: not yet).
    func process(_ item: InboundItem, session: Session?, connectionID: UInt64, peer: String) -> Outcome {
        func fail(_ error: ATLPError) -> Outcome {
            Outcome(bytes: error.frame.encoded, session: session, close: error.code.closesConnection, error: error.code)
        }
        let payload: [UInt8]
        switch item {
        case .framingError(let error): return fail(error)
        case .payload(let p): payload = p
        }
        let verb: String
        let body: JSONObject?
        do throws(ATLPError) {
            verb = try ATLPFrame.verb(of: payload)
            switch (session, verb) {
            case (nil, let v) where v != "HELLO":
                throw ATLPError(.helloRequired, "\(v) before HELLO: the first frame must be HELLO {\"protocol\":1,\"appKey\":...}")
            case (.some, "HELLO"):
                throw ATLPError(.helloRequired, "a second HELLO on one connection; open a new connection instead")
            default: break
            }
            body = try ATLPFrame.body(of: payload, verb: verb)
        } catch {
            return fail(error)
        }
        let object = body ?? JSONObject()

        guard let session else {
            let hello: Hello
            do { hello = try Hello(body: object) } catch { return fail(error) }
            switch handler.hello(hello, peer: peer) {
            case .accept(let admin, let authenticated):
                let accepted = Session(connectionID: connectionID, peer: peer, hello: hello, isAdmin: admin)
                let welcome = Welcome(protocolVersion: 1, maxFrame: maxFrame, maxSnapshot: maxSnapshotFrame).frame
                return Outcome(bytes: welcome.encoded, session: accepted, close: false, authenticated: authenticated)
            case .unauthorized(let message):
                return fail(ATLPError(.unauthorized, message))
            }
        }
        let request: ATLPRequest
        switch verb {
        case "PING":
            return Outcome(bytes: ATLPFrame(verb: "PONG").encoded, session: session, close: false)
        case "BYE":
            return Outcome(bytes: ATLPFrame(verb: "BYE").encoded, session: session, close: true)
        case "EVENTS":
            guard let batch = object["batch"] else {
                return fail(ATLPError(.badRequest, "EVENTS needs \"batch\": a string or integer the ACK echoes"))
            }
            switch batch {
            case .string(let s) where !s.isEmpty && s.utf8.count <= 128: break
            case .int: break
            default:
                return fail(
                    ATLPError(.badRequest, "EVENTS \"batch\" must be a string of 1 to 128 bytes or an integer, found \(batch.jsonText.prefix(40))"))
            }
            guard let events = object["events"]?.arrayValue else {
                return fail(ATLPError(.badRequest, "EVENTS needs \"events\": an array of event objects"))
            }
            var sentAt: Int64?
            if let t = object["sentAt"] {
                guard case .int(let ms) = t else {
                    return fail(
                        ATLPError(.badRequest, "EVENTS \"sentAt\" must be an integer (ms since the epoch), found \(t.kindDescription)"))
                }
                sentAt = ms
            }
            request = .events(batch: batch, events: events, sentAt: sentAt)
        case "CONFIG":
            request = .config(object)
        case "PUBLISH":
            guard session.isAdmin else {
                return fail(ATLPError(.forbidden, "PUBLISH needs a connection whose HELLO carried the admin token"))
            }
            guard let rules = object["rules"]?.arrayValue else {
                return fail(ATLPError(.badRequest, "PUBLISH needs \"rules\": an array of rules"))
            }
            var sampleRate: Double?
            if let r = object["sampleRate"] {
                guard let rate = r.doubleValue, (0...1).contains(rate) else {
                    return fail(
                        ATLPError(.badRequest, "PUBLISH \"sampleRate\" must be a number from 0 to 1, found \(r.jsonText.prefix(40))"))
                }
                sampleRate = rate
            }
            request = .publish(rules: rules, sampleRate: sampleRate)
        case "SNAPSHOT":
            do { request = .snapshot(try SnapshotUpload(body: object)) } catch { return fail(error) }
        default:
            return fail(
                ATLPError(.unknownVerb, "\(verb) is not a request of ATLP/1; requests are \(Self.verbs.joined(separator: ", "))"))
        }
        let reply = handler.handle(request, session: session)
        var code: ATLPErrorCode?
        if case .error(let c, _) = reply { code = c }
        return Outcome(
            bytes: reply.wireBytes, session: session, close: code?.closesConnection ?? false, error: code)
    }
}
