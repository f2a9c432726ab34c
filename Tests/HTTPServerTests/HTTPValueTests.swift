import HTTPServer
import SystemCalls
import Testing

@testable import HTTPServer

/// The value types handlers use: headers, requests' accessors, responses' helpers, dates.
@Suite struct HTTPValueTests {
    @Test func headersLookUpByNameInAnyCaseAndKeepOrder() {
        var h: HTTPHeaders = ["Content-Type": "text/plain", "Set-Cookie": "a=1"]
        h.add("set-cookie", "b=2")
        #expect(h["content-type"] == "text/plain")
        #expect(h.values("SET-COOKIE") == ["a=1", "b=2"])
        h.set("Set-Cookie", "c=3")
        #expect(h.values("set-cookie") == ["c=3"])
        h.remove("CONTENT-TYPE")
        #expect(h["Content-Type"] == nil)
        let connection: HTTPHeaders = ["Connection": "Keep-Alive, Upgrade"]
        #expect(connection.listContains("connection", token: "upgrade"))
        #expect(!connection.listContains("connection", token: "close"))
    }

    @Test func aRequestSplitsItsTargetAndDecodesOnRequest() {
        let r = HTTPRequest(
            method: .get, target: "/pages/caf%C3%A9%2Fx?name=a+b&e=%3D%26&flag&bad=%zz",
            headers: ["Cookie": "session=abc; theme=\"dark\"", "Content-Type": "application/x-www-form-urlencoded; charset=utf-8"],
            body: Array("user=ann+lee&pass=p%40ss".utf8))
        #expect(r.path == "/pages/caf%C3%A9%2Fx")
        #expect(r.decodedPath == "/pages/café/x")
        #expect(r.query == "name=a+b&e=%3D%26&flag&bad=%zz")
        #expect(r.queryItems == [.init(name: "name", value: "a b"), .init(name: "e", value: "=&"), .init(name: "flag", value: "")])
        #expect(r.queryValue("e") == "=&")
        #expect(r.cookie("session") == "abc")
        #expect(r.cookie("theme") == "dark")
        #expect(r.cookie("none") == nil)
        #expect(r.formItems == [.init(name: "user", value: "ann lee"), .init(name: "pass", value: "p@ss")])
        #expect(HTTPRequest(method: .get, target: "/%ff").decodedPath == nil)  // not UTF-8
        #expect(HTTPRequest(method: .get, target: "/%4").decodedPath == nil)
        #expect(HTTPRequest(method: .get, target: "/a").query == nil)
        #expect(HTTPRequest(method: .get, target: "/a%00b").decodedPath == nil)  // no NUL smuggled into a path
        #expect(HTTPRequest(method: .get, target: "/api/pages/a%2Fb/png").pathSegments == ["api", "pages", "a/b", "png"])
        #expect(HTTPRequest(method: .get, target: "/").pathSegments == [""])
        #expect(HTTPRequest(method: .get, target: "/a/%zz").pathSegments == nil)
        #expect(HTTPRequest(method: .options, target: "*").pathSegments == nil)
    }

    @Test func keepAliveFollowsTheVersionAndConnectionField() {
        #expect(HTTPRequest(method: .get, target: "/").wantsKeepAlive)
        #expect(!HTTPRequest(method: .get, target: "/", headers: ["Connection": "close"]).wantsKeepAlive)
        #expect(!HTTPRequest(method: .get, target: "/", version: .http1_0).wantsKeepAlive)
        #expect(HTTPRequest(method: .get, target: "/", version: .http1_0, headers: ["Connection": "Keep-Alive"]).wantsKeepAlive)
    }

    @Test func responsesAreWrittenWithTheServersFieldsOnly() {
        var response = HTTPResponse.json("{\"ok\":true}", status: .created)
        response.headers.add("Content-Length", "999")
        response.headers.add("Transfer-Encoding", "chunked")
        let text = String(
            decoding: ResponseWriter.serialize(response, date: "D", closing: false, keepAliveHTTP10: false, omitBody: false),
            as: UTF8.self)
        #expect(text == "HTTP/1.1 201 Created\r\nDate: D\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n{\"ok\":true}")
        let noContent = String(
            decoding: ResponseWriter.serialize(HTTPResponse(status: .noContent), date: "D", closing: true, keepAliveHTTP10: false, omitBody: false),
            as: UTF8.self)
        #expect(noContent == "HTTP/1.1 204 No Content\r\nDate: D\r\nConnection: close\r\n\r\n")
        #expect(HTTPResponse.redirect(to: "/login").headers["Location"] == "/login")
        #expect(HTTPResponse.png([0x89, 0x50]).headers["Content-Type"] == "image/png")
        #expect(!ResponseWriter.isSendable(HTTPResponse(status: HTTPStatus(200, "OK\r\nX: y"))))
        #expect(!ResponseWriter.isSendable(HTTPResponse(headers: ["Bad Name": "v"])))
        #expect(!ResponseWriter.isSendable(HTTPResponse(status: HTTPStatus(code: 101))))
    }

    @Test func datesAreIMFFixdate() {
        #expect(HTTPDate.format(epochSeconds: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(epochSeconds: 0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(epochSeconds: 951_782_400) == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(HTTPDate.format(epochSeconds: 1_798_761_599) == "Thu, 31 Dec 2026 23:59:59 GMT")
        #expect(HTTPStatus(code: 431).reason == "Request Header Fields Too Large")
    }
}
