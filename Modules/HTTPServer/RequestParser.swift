import SystemCalls

/// A request the parser could not accept: the status to answer with (the connection then
/// closes) and our own words for why, never the request's bytes.
struct RequestFailure: Error, Sendable, Hashable {
    var status: HTTPStatus
    var message: String

    init(_ status: HTTPStatus, _ message: String) {
        self.status = status
        self.message = message
    }
}

/// What the parser found in the bytes so far.
enum ParsedItem {
    /// A whole request (head and body).
    case request(HTTPRequest)
    /// Bytes that are not an acceptable request; nothing after them is read.
    case failure(RequestFailure)
}

/// Cuts a connection's bytes into requests, incrementally and strictly (RFC 9112 with the
/// choices in docs/http-server.md). Each byte of a head is looked at once while searching for
/// its end; limits are checked before anything is kept beyond them.
struct RequestParser {
    enum State {
        /// Reading a head: lines end at `lineStart`…; `scanned` is where the search for LF resumes.
        case head
        /// The head is parsed; waiting for `length` body bytes.
        case body(HTTPRequest, length: Int)
        /// A failure was returned: nothing more is parsed.
        case failed
    }

    let limits: HTTPServerConfiguration
    let peer: SocketAddress
    let isSecure: Bool
    private(set) var state = State.head
    private var buffer: [UInt8] = []
    /// Bytes before `start` are consumed.
    private var start = 0
    private var scanned = 0
    private var lineStart = 0
    /// The head's lines so far (ranges in `buffer`, without CRLF).
    private var lines: [Range<Int>] = []
    /// Empty lines skipped before this request line (RFC 9112 §2.2 allows a few).
    private var leadingEmptyLines = 0
    /// The head being read asked for `100 Continue` and has not had it.
    private(set) var wantsContinue = false

    init(limits: HTTPServerConfiguration, peer: SocketAddress, isSecure: Bool) {
        self.limits = limits
        self.peer = peer
        self.isSecure = isSecure
    }

    /// Bytes received and not yet part of a returned request.
    var bufferedCount: Int { buffer.count - start }

    var isReadingBody: Bool {
        if case .body = state { return true }
        return false
    }

    /// Body bytes of the request in progress received so far.
    var bodyReceived: Int { isReadingBody ? bufferedCount : 0 }

    mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if case .failed = state { return }  // nothing after a failure is read
        buffer.append(contentsOf: bytes)
    }

    /// The `100 Continue` was sent (or is no longer wanted).
    mutating func continueSent() { wantsContinue = false }

    /// The next whole request or failure, or nil until more bytes arrive.
    mutating func next() -> ParsedItem? {
        switch state {
        case .failed:
            return nil
        case .body(let request, let length):
            guard bufferedCount >= length else { return nil }
            var complete = request
            complete.body = Array(buffer[start..<start + length])
            consume(length)
            state = .head
            wantsContinue = false
            return .request(complete)
        case .head:
            do throws(RequestFailure) {
                guard let request = try scanHead() else { return nil }
                return finishHead(request)
            } catch {
                return fail(error)
            }
        }
    }

    private mutating func fail(_ failure: RequestFailure) -> ParsedItem {
        state = .failed
        buffer = []
        start = 0
        wantsContinue = false
        return .failure(failure)
    }

    private mutating func consume(_ n: Int) {
        start += n
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 16)
            start = 0
        } else if start >= 1 << 16 && start * 2 >= buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        scanned = start
        lineStart = start
        lines.removeAll(keepingCapacity: true)
    }

    /// Finds the head's end; parses it when found. nil: more bytes needed.
    private mutating func scanHead() throws(RequestFailure) -> HTTPRequest? {
        let cr = UInt8(ascii: "\r")
        let lf = UInt8(ascii: "\n")
        while scanned < buffer.count {
            guard let i = buffer[scanned...].firstIndex(of: lf) else {
                scanned = buffer.count
                break
            }
            scanned = i + 1
            guard i > lineStart, buffer[i - 1] == cr else {
                throw RequestFailure(.badRequest, "a line ended in a bare LF; lines end in CRLF")
            }
            let line = lineStart..<(i - 1)
            lineStart = i + 1
            if line.isEmpty {
                if lines.isEmpty {
                    // Empty lines before a request line (after a body, say) are skipped, a few.
                    leadingEmptyLines += 1
                    guard leadingEmptyLines <= 4 else { throw RequestFailure(.badRequest, "empty lines instead of a request line") }
                    consume(i + 1 - start)
                    continue
                }
                let head = try parseHead()
                leadingEmptyLines = 0
                consume(i + 1 - start)
                return head
            }
            if lines.isEmpty && line.count > limits.maxRequestLineBytes {
                throw RequestFailure(.uriTooLong, "the request line is longer than \(limits.maxRequestLineBytes) bytes")
            }
            lines.append(line)
            if lines.count > limits.maxHeaderFields + 1 {
                throw RequestFailure(.requestHeaderFieldsTooLarge, "more than \(limits.maxHeaderFields) header fields")
            }
            if scanned - start > limits.maxHeaderBytes { throw headTooLarge }
        }
        // No end yet: what has come of a request line must start like one (bytes that cannot
        // become a method fail now, not at the head deadline), and the line in progress and the
        // head so far must stay within the limits.
        if lines.isEmpty { try checkMethodSoFar() }
        if lines.isEmpty && scanned - lineStart > limits.maxRequestLineBytes {
            throw RequestFailure(.uriTooLong, "the request line is longer than \(limits.maxRequestLineBytes) bytes")
        }
        if scanned - start > limits.maxHeaderBytes { throw headTooLarge }
        return nil
    }

    /// The first bytes of a request line in progress (up to its first space, at most 32 looked
    /// at) must be a method's: token bytes, or a lone CR of an empty line before it.
    private func checkMethodSoFar() throws(RequestFailure) {
        let window = buffer[lineStart..<min(buffer.count, lineStart + 32)]
        let method = window.prefix { $0 != UInt8(ascii: " ") }
        if method.allSatisfy(Self.isTokenByte) || method.elementsEqual([UInt8(ascii: "\r")]) { return }
        if method.first == 0x16 {
            // A TLS handshake record: an https:// client on this plain port.
            throw RequestFailure(.badRequest, "this port speaks plain HTTP, not TLS; use an http:// address")
        }
        throw RequestFailure(.badRequest, "the request line does not start with a method")
    }

    private var headTooLarge: RequestFailure {
        RequestFailure(.requestHeaderFieldsTooLarge, "the request head is larger than \(limits.maxHeaderBytes) bytes")
    }

    /// After the head: decides the body, or fails.
    private mutating func finishHead(_ request: HTTPRequest) -> ParsedItem? {
        let lengths = request.headers.values("Content-Length")
        if request.headers.contains("Transfer-Encoding") {
            return fail(
                RequestFailure(.notImplemented, "Transfer-Encoding is not supported; send the body with a Content-Length"))
        }
        var length = 0
        if lengths.count > 1 {
            return fail(RequestFailure(.badRequest, "more than one Content-Length field"))
        }
        if let text = lengths.first {
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
                return fail(RequestFailure(.badRequest, "Content-Length is not a decimal number"))
            }
            guard text.utf8.count <= 18, let n = Int(text), n <= limits.maxBodyBytes else {
                return fail(RequestFailure(.contentTooLarge, "the body is larger than \(limits.maxBodyBytes) bytes"))
            }
            length = n
        } else if [.post, .put, .patch].contains(request.method) {
            return fail(RequestFailure(.lengthRequired, "a \(request.method) needs a Content-Length (0 for no body)"))
        }
        if let expect = request.headers["Expect"] {
            guard HTTPHeaders.sameName(expect.trimmingSpaces, "100-continue") else {
                return fail(RequestFailure(.expectationFailed, "the only expectation supported is 100-continue"))
            }
            wantsContinue = length > 0 && request.version == .http1_1 && bufferedCount < length
        }
        state = .body(request, length: length)
        return next()
    }

    // MARK: the head's syntax

    private func parseHead() throws(RequestFailure) -> HTTPRequest {
        let requestLine = buffer[lines[0]]
        let parts = requestLine.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw RequestFailure(.badRequest, "the request line is not METHOD SP TARGET SP VERSION")
        }
        guard parts[0].allSatisfy(Self.isTokenByte) else { throw RequestFailure(.badRequest, "the method is not a token") }
        let version = try Self.version(parts[2])
        guard parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw RequestFailure(.badRequest, "the request target holds a byte that is not visible ASCII")
        }
        let method = HTTPMethod(String(decoding: parts[0], as: UTF8.self))
        var target = String(decoding: parts[1], as: UTF8.self)

        var headers = HTTPHeaders()
        for range in lines.dropFirst() {
            let line = buffer[range]
            if line.first == 0x20 || line.first == 0x09 {
                throw RequestFailure(.badRequest, "a header line starts with whitespace (obsolete line folding)")
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                throw RequestFailure(.badRequest, "a header line has no colon")
            }
            let name = line[line.startIndex..<colon]
            guard !name.isEmpty, name.allSatisfy(Self.isTokenByte) else {
                throw RequestFailure(.badRequest, "a header name is not a token (whitespace before the colon?)")
            }
            var value = line[(colon + 1)...]
            while let f = value.first, f == 0x20 || f == 0x09 { value = value.dropFirst() }
            while let l = value.last, l == 0x20 || l == 0x09 { value = value.dropLast() }
            guard value.allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == 0x09 }) else {
                throw RequestFailure(.badRequest, "a header value holds a control character")
            }
            headers.add(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
        }

        let hosts = headers.values("Host")
        if hosts.count > 1 { throw RequestFailure(.badRequest, "more than one Host field") }
        if version == .http1_1 && hosts.isEmpty { throw RequestFailure(.badRequest, "an HTTP/1.1 request needs a Host field") }
        if let host = hosts.first, !Self.isAuthority(host) { throw RequestFailure(.badRequest, "the Host field is not a host[:port]") }

        if method.rawValue == "CONNECT" {
            throw RequestFailure(.notImplemented, "CONNECT is not supported: this is not a proxy")
        }
        if target.utf8.first == UInt8(ascii: "/") {
            // origin-form
        } else if target == "*" {
            guard method == .options else { throw RequestFailure(.badRequest, "the target * is for OPTIONS only") }
        } else if let (authority, rest) = Self.absoluteForm(target) {
            guard Self.isAuthority(authority), !authority.isEmpty else {
                throw RequestFailure(.badRequest, "the absolute target's authority is not a host[:port]")
            }
            headers.set("Host", authority)
            target = rest
        } else {
            throw RequestFailure(.badRequest, "the request target is not a path, an http(s) URI or *")
        }
        return HTTPRequest(method: method, target: target, version: version, headers: headers, peer: peer, isSecure: isSecure)
    }

    private static func version(_ bytes: ArraySlice<UInt8>) throws(RequestFailure) -> HTTPVersion {
        let b = Array(bytes)
        guard b.count == 8, b[0..<5].elementsEqual("HTTP/".utf8), b[6] == UInt8(ascii: "."),
            (48...57).contains(b[5]), (48...57).contains(b[7])
        else { throw RequestFailure(.badRequest, "the version is not HTTP/x.y") }
        let v = HTTPVersion(major: Int(b[5] - 48), minor: Int(b[7] - 48))
        guard v == .http1_1 || v == .http1_0 else {
            throw RequestFailure(.httpVersionNotSupported, "only HTTP/1.1 and HTTP/1.0 are served")
        }
        return v
    }

    /// `http://authority/rest` (any case in the scheme): the authority and the origin-form rest.
    private static func absoluteForm(_ target: String) -> (authority: String, rest: String)? {
        let lower = target.lowercased()
        let scheme = lower.hasPrefix("http://") ? 7 : lower.hasPrefix("https://") ? 8 : 0
        guard scheme > 0 else { return nil }
        let afterScheme = target.utf8.dropFirst(scheme)
        let end = afterScheme.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? afterScheme.endIndex
        let authority = String(Substring(target.utf8[afterScheme.startIndex..<end]))
        var rest = String(Substring(target.utf8[end...]))
        if !rest.hasPrefix("/") { rest = "/" + rest }
        return (authority, rest)
    }

    /// tchar (RFC 9110 §5.6.2).
    static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        default: return "!#$%&'*+-.^_`|~".utf8.contains(b)
        }
    }

    /// host [":" port] with reg-name, IPv4 or bracketed IPv6 characters (RFC 3986 §3.2), no userinfo.
    static func isAuthority(_ text: String) -> Bool {
        text.utf8.count <= 255
            && text.utf8.allSatisfy { b in
                switch b {
                case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
                default: return "-._~!$&'()*+,;=:[]%".utf8.contains(b)
                }
            }
    }
}
