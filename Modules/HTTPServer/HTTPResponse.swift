/// A handler's answer. The server adds `Date`, `Content-Length` and `Connection` (replacing any
/// the handler set, and `Transfer-Encoding`), and sends no body to a `HEAD` request or with a
/// status that has none (1xx, 204, 304). A handler's `Connection: close` closes the connection
/// after this response. A header name or value holding CR, LF or NUL is never sent: the server
/// answers 500 instead.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response with `Content-Type: type` and `body`.
    public init(status: HTTPStatus = .ok, contentType type: String, body: [UInt8]) {
        self.init(status: status, headers: ["Content-Type": type], body: body)
    }

    /// `application/json` text (the caller encodes it).
    public static func json(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", body: Array(text.utf8))
    }

    /// `text/html; charset=utf-8`.
    public static func html(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/html; charset=utf-8", body: Array(text.utf8))
    }

    /// `text/plain; charset=utf-8`.
    public static func text(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }

    /// `image/png` bytes.
    public static func png(_ bytes: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: .ok, contentType: "image/png", body: bytes)
    }

    /// A redirect (303 by default: after a POST, GET `location`).
    public static func redirect(to location: String, status: HTTPStatus = .seeOther) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Location": location], body: [])
    }

    /// A short plain-text error: `"<code> <reason>: <message>\n"`. The message is sent as
    /// plain text with `nosniff`, so nothing in it is ever interpreted as markup; still, say
    /// what went wrong in our own words rather than echoing the request.
    public static func error(_ status: HTTPStatus, _ message: String = "") -> HTTPResponse {
        var response = text(message.isEmpty ? "\(status)\n" : "\(status): \(message)\n", status: status)
        response.headers.set("X-Content-Type-Options", "nosniff")
        return response
    }
}

/// What answers requests. Called on the server's worker threads (never the I/O thread, never
/// the Swift concurrency pool), one request of a connection at a time and in order; it may block.
public protocol HTTPHandler: Sendable {
    func respond(to request: HTTPRequest) -> HTTPResponse
}
