import Foundation
import HTTPServer
import Synchronization
import SecureChannel
import SystemCalls

/// The handler the tests serve: a few routes that show what the server handed over.
///   /echo…      → "METHOD path query bodyLength" (and the body after a newline for POST)
///   /big?n=N    → N bytes of "x"
///   /slow?ms=N  → sleeps N ms, then "slept"
///   /secure     → "secure" or "plain"
///   /inject     → a header value with CRLF in it (the server must refuse to send it)
///   /close      → asks for the connection to close
final class TestRoutes: HTTPHandler {
    let seen = Mutex<[String]>([])

    func respond(to request: HTTPRequest) -> HTTPResponse {
        seen.withLock { $0.append("\(request.method) \(request.target)") }
        switch request.path {
        case "/big":
            let n = Int(request.queryValue("n") ?? "") ?? 0
            return HTTPResponse(status: .ok, contentType: "application/octet-stream", body: [UInt8](repeating: 120, count: n))
        case "/slow":
            let ms = Int(request.queryValue("ms") ?? "") ?? 0
            Thread.sleep(forTimeInterval: Double(ms) / 1000)
            return .text("slept")
        case "/secure":
            return .text(request.isSecure ? "secure" : "plain")
        case "/inject":
            return HTTPResponse(status: .ok, headers: ["X-Evil": "a\r\nSet-Cookie: owned=1"], body: Array("body".utf8))
        case "/close":
            return HTTPResponse(status: .ok, headers: ["Connection": "close"], body: Array("bye".utf8))
        default:
            var text = "\(request.method) \(request.path) \(request.query ?? "-") \(request.body.count)"
            if !request.body.isEmpty { text += "\n" + (request.bodyText ?? "?") }
            return .text(text)
        }
    }
}

/// Starts a server on an ephemeral loopback port with `change` applied to small test limits.
func startServer(
    _ routes: TestRoutes = TestRoutes(), _ change: (inout HTTPServerConfiguration) -> Void = { _ in },
    security: SecureChannelFactory? = nil
) throws -> (HTTPService, SocketAddress) {
    var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
    change(&configuration)
    let server = HTTPService(configuration: configuration, handler: routes, security: security)
    return (server, try server.start())
}
