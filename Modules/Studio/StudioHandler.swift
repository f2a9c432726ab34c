import EventModel
public import Foundation
public import HTTPServer
import SystemCalls

/// The studio over HTTP (docs/studio.md): the page and its files, login and logout, and the JSON
/// API of `StudioAPI`, with the security headers on every answer. `serve --studio` runs it on an
/// `HTTPService` beside ATLP.
///
/// Who may use it: a request carrying `Authorization: Bearer <admin token>`, or the session cookie
/// a login with that token sets (`HttpOnly; SameSite=Strict`, `Secure` under TLS). There are no
/// CORS headers and `OPTIONS` is refused, so another site's page can neither read an answer nor
/// send the JSON the writes require; and every write, login and logout included, is refused when
/// a browser says it comes from another origin (another port of this host is the same site, so
/// `SameSite` alone would let its pages log the studio out). Wrong tokens are throttled per
/// address (`LoginThrottle`).
public struct StudioHandler: HTTPHandler {
    /// What shapes a studio besides its back end.
    public struct Configuration: Sendable {
        /// Whether a token is the collector's admin token (compared in constant time).
        public var isAdminToken: @Sendable (String) -> Bool
        /// Milliseconds since the epoch (a parameter so tests can move time).
        public var clock: @Sendable () -> Int64
        /// How long a login lasts, ms.
        public var sessionLifetime: Int64

        public init(
            isAdminToken: @escaping @Sendable (String) -> Bool,
            clock: @escaping @Sendable () -> Int64 = { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) },
            sessionLifetime: Int64 = 12 * 3_600_000
        ) {
            self.isAdminToken = isAdminToken
            self.clock = clock
            self.sessionLifetime = sessionLifetime
        }
    }

    /// The session cookie's name.
    public static let cookieName = "autotrack_studio"

    let configuration: Configuration
    let logins: StudioLogins
    let throttle = LoginThrottle()
    let api: StudioAPI

    public init(backend: any StudioBackend, configuration: Configuration) {
        self.configuration = configuration
        logins = StudioLogins(lifetime: configuration.sessionLifetime, clock: configuration.clock)
        api = StudioAPI(backend: backend, clock: configuration.clock)
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        var response = route(request)
        Self.secure(&response)
        return response
    }

    private func route(_ request: HTTPRequest) -> HTTPResponse {
        let isRead = request.method == .get || request.method == .head
        // Every write (login, logout, the API's) comes from the studio's own pages or from a
        // client that is no browser; a page of another origin, another port of this host
        // included, is refused before anything is checked.
        // (`OPTIONS` acts on nothing: it keeps its 405, the answer a preflight gets.)
        if !isRead, request.method != .options, let refusal = Self.crossOriginRefusal(request) { return Self.json(refusal) }
        if request.path == "/api" || request.path.hasPrefix("/api/") { return apiResponse(request) }
        switch (request.path, isRead) {
        case ("/", true):
            return session(of: request) != nil ? .html(StudioAssets.studioHTML) : .redirect(to: "/login")
        case ("/studio.js", true):
            return HTTPResponse(contentType: "text/javascript; charset=utf-8", body: Array(StudioAssets.javaScript.utf8))
        case ("/studio.css", true):
            return HTTPResponse(contentType: "text/css; charset=utf-8", body: Array(StudioAssets.css.utf8))
        case ("/favicon.svg", true), ("/favicon.ico", true):
            return HTTPResponse(contentType: "image/svg+xml", body: Array(StudioAssets.faviconSVG.utf8))
        case ("/login", true): return loginPage(message: nil, status: .ok)
        case ("/login", false) where request.method == .post: return login(request)
        case ("/logout", false) where request.method == .post: return logout(request)
        case ("/", false), ("/studio.js", false), ("/studio.css", false), ("/login", false), ("/logout", _):
            var response = HTTPResponse.error(.methodNotAllowed, "use \(request.path == "/logout" ? "POST" : "GET")")
            response.headers.set("Allow", request.path == "/logout" ? "POST" : request.path == "/login" ? "GET, HEAD, POST" : "GET, HEAD")
            return response
        default:
            return .error(.notFound, "the studio has no such page; open /")
        }
    }

    // MARK: Who is asking

    /// The request's valid session id, if its cookie names one.
    private func session(of request: HTTPRequest) -> String? {
        guard let id = request.cookie(Self.cookieName), logins.isValid(id) else { return nil }
        return id
    }

    /// Nil when the request may use the API; the error otherwise (and the seconds to wait).
    private func authorize(_ request: HTTPRequest) -> (error: StudioError, retryAfter: Int64?)? {
        if let authorization = request.headers["Authorization"] {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].lowercased() == "bearer" else {
                return (StudioError(.unauthorized, "the Authorization header must be 'Bearer <admin token>'"), nil)
            }
            return checkToken(String(parts[1]).trimmingCharacters(in: .whitespaces), from: request)
        }
        if session(of: request) != nil { return nil }
        return (StudioError(.unauthorized, "log in at /login, or send 'Authorization: Bearer <admin token>' (serve --admin-token)"), nil)
    }

    /// Nil when `token` is the admin token; the refusal otherwise, with the seconds to wait when
    /// the address is throttled (`LoginThrottle`).
    private func checkToken(_ token: String, from request: HTTPRequest) -> (error: StudioError, retryAfter: Int64?)? {
        let now = configuration.clock()
        let address = request.peer.host
        if let wait = throttle.admit(address, at: now) {
            let seconds = max(1, (wait + 999) / 1000)
            return (
                StudioError(
                    .tooManyRequests,
                    "too many wrong tokens from \(address); the next one is checked in \(seconds) s (Retry-After)"), seconds
            )
        }
        if configuration.isAdminToken(token) {
            throttle.succeeded(address)
            return nil
        }
        throttle.failed(address, at: now)
        return (StudioError(.unauthorized, "that is not the collector's admin token (serve --admin-token)"), nil)
    }

    /// Why a write must be refused as coming from another origin, or nil. A browser says where a
    /// request comes from in `Sec-Fetch-Site`: only `same-origin` (the studio's own pages) and
    /// `none` (typed by the person) pass; another port of this host is `same-site` and refused.
    /// Without it (an older browser), `Origin` must be this server's own (`http(s)://` + `Host`);
    /// `null` is refused. Clients that send neither (curl, the agents' tools) pass. (The pages'
    /// `Referrer-Policy: no-referrer` makes a browser send `Origin: null` with a form, so
    /// `Sec-Fetch-Site` decides where it is sent.)
    static func crossOriginRefusal(_ request: HTTPRequest) -> StudioError? {
        let refusal = StudioError(
            .forbidden, "a page of another origin may not \(request.method) \(request.path): open the studio itself, or send no Origin")
        if let site = request.headers["Sec-Fetch-Site"]?.trimmingCharacters(in: .whitespaces).lowercased() {
            return site == "same-origin" || site == "none" ? nil : refusal
        }
        guard let origin = request.headers["Origin"] else { return nil }
        let scheme = request.isSecure ? "https" : "http"
        func authority(_ text: String) -> String {
            let lower = text.trimmingCharacters(in: .whitespaces).lowercased()
            let defaultPort = request.isSecure ? ":443" : ":80"
            return lower.hasSuffix(defaultPort) ? String(lower.dropLast(defaultPort.count)) : lower
        }
        let prefix = scheme + "://"
        guard let host = request.headers["Host"], origin.lowercased().hasPrefix(prefix),
            authority(String(origin.dropFirst(prefix.count))) == authority(host)
        else { return refusal }
        return nil
    }

    // MARK: The API

    private func apiResponse(_ request: HTTPRequest) -> HTTPResponse {
        if request.method == .options {
            // No CORS: a preflight is refused, so no other origin may send the API its JSON.
            var response = Self.json(StudioError(.methodNotAllowed, "OPTIONS is not served: the studio answers its own page only (no CORS)"))
            response.headers.set("Allow", "GET, HEAD, POST, PUT, DELETE")
            return response
        }
        if let (refusal, retryAfter) = authorize(request) {
            var response = Self.json(refusal)
            if refusal.code == .unauthorized { response.headers.set("WWW-Authenticate", "Bearer realm=\"autotrack-studio\"") }
            if let retryAfter { response.headers.set("Retry-After", String(retryAfter)) }
            return response
        }
        if let refusal = Self.contentRefusal(request) { return Self.json(refusal) }
        switch api.respond(to: request) {
        case .success(let answer): return answer
        case .failure(let error): return Self.json(error)
        }
    }

    /// Why a write's content must be refused (415), or nil: `POST` and `PUT` carry
    /// `Content-Type: application/json` (a form on another page cannot send it), and so does a
    /// `DELETE` with a body; a `DELETE` without one needs none, as no form or simple request of
    /// another page can send a `DELETE` at all (a script's needs a preflight, which is refused).
    static func contentRefusal(_ request: HTTPRequest) -> StudioError? {
        switch request.method {
        case .post, .put, .delete:
            if request.method == .delete, request.body.isEmpty, request.headers["Content-Type"] == nil { return nil }
            if isJSON(request) { return nil }
            return StudioError(.unsupportedMediaType, "send 'Content-Type: application/json' with \(request.method)")
        default: return nil
        }
    }

    static func isJSON(_ request: HTTPRequest) -> Bool {
        guard let type = request.headers["Content-Type"] else { return false }
        let media = type.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return media.lowercased() == "application/json"
    }

    /// `{"error","reason"}` with the error's status.
    static func json(_ error: StudioError) -> HTTPResponse {
        let body = JSONValue.object(JSONObject([("error", .string(error.code.rawValue)), ("reason", .string(error.reason))]))
        return .json(body.jsonText, status: HTTPStatus(code: error.code.status))
    }

    // MARK: Login

    private func login(_ request: HTTPRequest) -> HTTPResponse {
        let isForm = request.formItems != nil
        let token: String?
        if let form = request.formItems {
            token = form.first { $0.name == "token" }?.value
        } else if Self.isJSON(request) {
            token = (try? JSONValue.parse(request.body))?["token"]?.stringValue
        } else {
            return Self.json(StudioError(.unsupportedMediaType, "log in with a form (token=...) or JSON {\"token\": ...}"))
        }
        func refuse(_ error: StudioError, retryAfter: Int64? = nil) -> HTTPResponse {
            var response = isForm ? loginPage(message: error.reason, status: HTTPStatus(code: error.code.status)) : Self.json(error)
            if let retryAfter { response.headers.set("Retry-After", String(retryAfter)) }
            return response
        }
        guard let token, !token.isEmpty else { return refuse(StudioError(.badRequest, "give the admin token")) }
        if let (error, retryAfter) = checkToken(token, from: request) { return refuse(error, retryAfter: retryAfter) }
        let (id, _) = logins.start()
        var cookie = "\(Self.cookieName)=\(id); Path=/; HttpOnly; SameSite=Strict; Max-Age=\(configuration.sessionLifetime / 1000)"
        if request.isSecure { cookie += "; Secure" }
        var response: HTTPResponse = isForm ? .redirect(to: "/") : .json(#"{"session":"started"}"#)
        response.headers.add("Set-Cookie", cookie)
        return response
    }

    /// A write like the API's: JSON only (the page's script sends it), so a form on another page,
    /// another port of this host included, cannot end the session.
    private func logout(_ request: HTTPRequest) -> HTTPResponse {
        guard Self.isJSON(request) else {
            return Self.json(StudioError(.unsupportedMediaType, "log out with 'Content-Type: application/json' (the studio's Log out button)"))
        }
        if let id = request.cookie(Self.cookieName) { logins.end(id) }
        var response: HTTPResponse = .json(#"{"session":"ended"}"#)
        response.headers.add(
            "Set-Cookie", "\(Self.cookieName)=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0\(request.isSecure ? "; Secure" : "")")
        return response
    }

    private func loginPage(message: String?, status: HTTPStatus) -> HTTPResponse {
        // The message is one of our own sentences (no markup), never the request's text.
        let html = StudioAssets.loginHTML.replacingOccurrences(
            of: "<!--MESSAGE-->", with: message.map { "<p class=\"error\" role=\"alert\">\($0)</p>" } ?? "")
        return .html(html, status: status)
    }

    // MARK: Headers on every answer

    /// The page runs only its own files, is never framed, and nothing is cached or sniffed.
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

    static func secure(_ response: inout HTTPResponse) {
        response.headers.set("Content-Security-Policy", contentSecurityPolicy)
        response.headers.set("X-Content-Type-Options", "nosniff")
        response.headers.set("X-Frame-Options", "DENY")
        response.headers.set("Referrer-Policy", "no-referrer")
        response.headers.set("Cache-Control", "no-store")
    }
}
