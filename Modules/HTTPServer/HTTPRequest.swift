public import SystemCalls

/// One request as the server parsed it, handed to the handler whole (its body read in full).
public struct HTTPRequest: Sendable {
    public var method: HTTPMethod
    /// The request-target exactly as sent: origin-form (`/a/b?x=1`), or `*` for `OPTIONS *`.
    /// An absolute-form target (`http://host/a?x=1`) is reduced to its origin-form here, its
    /// authority replacing `Host` (RFC 9112 §3.2.2).
    public var target: String
    /// The path part of `target` before any `?`, still percent-encoded (`/pages/a%2Fb`).
    public var path: String
    /// The part of `target` after the first `?`, still encoded; nil when there is no `?`.
    public var query: String?
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    /// The content (`Content-Length` bytes; empty without one).
    public var body: [UInt8]
    /// The client's address.
    public var peer: SocketAddress
    /// The request arrived over the server's secure channel (TLS).
    public var isSecure: Bool

    public init(
        method: HTTPMethod, target: String, version: HTTPVersion = .http1_1, headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [], peer: SocketAddress = SocketAddress(host: "127.0.0.1", port: 0), isSecure: Bool = false
    ) {
        self.method = method
        self.target = target
        if let q = target.firstIndex(of: "?") {
            path = String(target[..<q])
            query = String(target[target.index(after: q)...])
        } else {
            path = target
            query = nil
        }
        self.version = version
        self.headers = headers
        self.body = body
        self.peer = peer
        self.isSecure = isSecure
    }

    /// `path` percent-decoded as UTF-8; nil when an escape is malformed, the bytes are not UTF-8
    /// or they decode to a control character such as NUL (answer 400). `%2F` becomes `/` here:
    /// use `pathSegments` where that matters.
    public var decodedPath: String? { PercentDecoding.decode(path, plusIsSpace: false) }

    /// The path's segments, split at the `/`s as sent and each percent-decoded (`/a/b%2Fc/` is
    /// `["a", "b/c", ""]`); nil when any segment is malformed as for `decodedPath`, or the target
    /// is `*`.
    public var pathSegments: [String]? {
        guard path.hasPrefix("/") else { return nil }
        var segments: [String] = []
        for raw in path.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            guard let segment = PercentDecoding.decode(raw, plusIsSpace: false) else { return nil }
            segments.append(segment)
        }
        return segments
    }

    /// The query's `name=value` pairs in order, decoded as a form (`+` is a space); pairs
    /// whose escapes are malformed or decode to a control character are left out.
    public var queryItems: [HTTPQueryItem] { PercentDecoding.formItems(query ?? "") }

    /// The first value of query parameter `name`.
    public func queryValue(_ name: String) -> String? { queryItems.first { $0.name == name }?.value }

    /// The body as UTF-8 text; nil when it is not valid UTF-8.
    public var bodyText: String? { String(validating: body, as: UTF8.self) }

    /// The body's `name=value` pairs when it is `application/x-www-form-urlencoded`; nil otherwise.
    public var formItems: [HTTPQueryItem]? {
        guard let type = headers["Content-Type"],
            HTTPHeaders.sameName(type.split(separator: ";").first?.trimmingSpaces ?? "", "application/x-www-form-urlencoded"),
            let text = bodyText
        else { return nil }
        return PercentDecoding.formItems(text)
    }

    /// The value of cookie `name` from the `Cookie` fields (RFC 6265 §5.4), or nil.
    public func cookie(_ name: String) -> String? {
        for line in headers.values("Cookie") {
            for pair in line.split(separator: ";") {
                let trimmed = pair.trimmingSpaces
                guard let eq = trimmed.firstIndex(of: "=") else { continue }
                if trimmed[..<eq] == name {
                    var value = trimmed[trimmed.index(after: eq)...]
                    if value.count >= 2 && value.first == "\"" && value.last == "\"" { value = value.dropFirst().dropLast() }
                    return String(value)
                }
            }
        }
        return nil
    }

    /// The connection stays open after this request's response unless it or the server says
    /// otherwise (HTTP/1.1: unless `Connection: close`; HTTP/1.0: only with `Connection: keep-alive`).
    public var wantsKeepAlive: Bool {
        if headers.listContains("Connection", token: "close") { return false }
        return version == .http1_1 || headers.listContains("Connection", token: "keep-alive")
    }
}

/// One decoded `name=value` pair of a query or a form body.
public struct HTTPQueryItem: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// Percent-decoding (RFC 3986 §2.1) of paths and form-encoded pairs.
enum PercentDecoding {
    static func decode<S: StringProtocol>(_ text: S, plusIsSpace: Bool) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var it = text.utf8.makeIterator()
        while let b = it.next() {
            if b == UInt8(ascii: "%") {
                guard let h = it.next().flatMap(hexValue), let l = it.next().flatMap(hexValue) else { return nil }
                bytes.append(h << 4 | l)
            } else if plusIsSpace && b == UInt8(ascii: "+") {
                bytes.append(UInt8(ascii: " "))
            } else {
                bytes.append(b)
            }
        }
        guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    static func formItems(_ text: String) -> [HTTPQueryItem] {
        text.split(separator: "&", omittingEmptySubsequences: true).compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0], plusIsSpace: true) else { return nil }
            guard let value = parts.count > 1 ? decode(parts[1], plusIsSpace: true) : "" else { return nil }
            return HTTPQueryItem(name: name, value: value)
        }
    }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case 48...57: return b - 48
        case 65...70: return b - 55
        case 97...102: return b - 87
        default: return nil
        }
    }
}
