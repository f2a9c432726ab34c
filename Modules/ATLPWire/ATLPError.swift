import EventModel
/// The error codes of docs/wire.md §2, and whether each one closes the connection.
public enum ATLPErrorCode: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case badFrame = "bad-frame"
    case frameTooLarge = "frame-too-large"
    case helloRequired = "hello-required"
    case unauthorized = "unauthorized"
    case badJSON = "bad-json"
    case unknownVerb = "unknown-verb"
    case forbidden = "forbidden"
    case badRequest = "bad-request"
    /// Our extension (docs/wire.md): sent once, then closed, when the collector is at its
    /// connection limit. Clients that do not know it see an ERR followed by EOF and retry.
    case tooManyConnections = "too-many-connections"
    /// Our extension (docs/wire.md): the collector could not do what was asked right now (its
    /// storage failed: disk full, database locked); sent, then closed, so the client reconnects
    /// with backoff and resends. Nothing of the request was stored.
    case unavailable = "unavailable"
    /// Our extension (docs/wire.md): a client spoke plain ATLP to a port that expects TLS; sent
    /// in plain text, then closed. Retrying changes nothing: the client needs TLS configured.
    case tlsRequired = "tls-required"

    /// True when the sender closes the connection right after this ERR.
    public var closesConnection: Bool {
        switch self {
        case .badFrame, .frameTooLarge, .helloRequired, .unauthorized, .tooManyConnections, .unavailable, .tlsRequired: return true
        case .badJSON, .unknownVerb, .forbidden, .badRequest: return false
        }
    }

    /// The codes the spec's table lists (everything but our extensions).
    public static let specCodes: [ATLPErrorCode] = allCases.filter { ![.tooManyConnections, .unavailable, .tlsRequired].contains($0) }

    public var description: String { rawValue }
}

/// A protocol error: the ERR code that answers it and a message a person can act on.
public struct ATLPError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: ATLPErrorCode
    public var message: String

    public init(_ code: ATLPErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// Reads an `ERR` frame. A code this version does not know is read as `bad-frame`
    /// (closing: the safe reading), with the unknown code in the message.
    public init(errFrame frame: ATLPFrame) {
        let text = frame["code"]?.stringValue ?? "?"
        let message = frame["message"]?.stringValue ?? ""
        if let code = ATLPErrorCode(rawValue: text) {
            self.init(code, message)
        } else {
            self.init(.badFrame, "unknown code \(text): \(message)")
        }
    }

    /// The frame that answers it.
    public var frame: ATLPFrame { .error(code, message) }

    public var description: String { "\(code.rawValue): \(message)" }
}
