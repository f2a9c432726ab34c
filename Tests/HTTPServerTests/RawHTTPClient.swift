import Foundation
import HTTPServer
import SecureChannel
import SystemCalls

/// A response as the test client read it off the wire.
struct RawResponse {
    var status: Int
    var reason: String
    var headers: HTTPHeaders
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
}

struct ClientError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A blocking HTTP/1.1 client on a raw socket, for sending exactly the bytes a test wants
/// (malformed, pipelined, trickled) and reading responses one by one. With `security` it speaks
/// through a secure channel (TLS), doing the handshake in `init`.
final class RawHTTPClient {
    let fd: Int32
    private var input: [UInt8] = []
    private var channel: (any SecureChannel)?
    private var closed = false

    init(_ address: SocketAddress, timeout: Duration = .seconds(10), security: SecureChannelFactory? = nil) throws {
        fd = try Posix.socket(address)
        do {
            try Posix.connect(fd, address, timeout: timeout)
            try Posix.setTimeouts(fd, timeout)
            if let security {
                let channel = try security(address.host)
                try channel.start()
                self.channel = channel
                for _ in 0..<100 where !channel.isEstablished {
                    try Posix.sendAll(fd, channel.takeCiphertext())
                    guard let bytes = try readSocket(), !bytes.isEmpty else { throw ClientError("handshake: closed or timed out") }
                    try channel.receive(bytes[...])
                    input += try channel.readPlaintext()
                }
                try Posix.sendAll(fd, channel.takeCiphertext())
            }
        } catch {
            close()
            throw error
        }
    }

    deinit { if !closed { Posix.close(fd) } }

    func close() {
        guard !closed else { return }
        closed = true
        Posix.close(fd)
    }

    func setReceiveTimeout(_ timeout: Duration) throws { try Posix.setTimeouts(fd, timeout, send: false) }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) throws {
        guard let channel else {
            try Posix.sendAll(fd, bytes)
            return
        }
        try channel.send(bytes)
        try Posix.sendAll(fd, channel.takeCiphertext())
    }

    /// One read from the socket: bytes, [] at end of stream, nil on timeout.
    private func readSocket() throws -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let r = try Posix.withMutableBytes(&buffer) { (raw) throws(PosixError) -> IOResult in try Posix.read(fd, into: raw) }
        switch r {
        case .wouldBlock: return nil
        case .processed(let n): return Array(buffer[0..<n])
        }
    }

    /// More plaintext: false at end of stream; throws on timeout.
    private func fill() throws -> Bool {
        while true {
            guard let bytes = try readSocket() else { throw ClientError("timed out waiting for the server") }
            if bytes.isEmpty { return false }
            guard let channel else {
                input += bytes
                return true
            }
            try channel.receive(bytes[...])
            let plain = try channel.readPlaintext()
            if !plain.isEmpty {
                input += plain
                return true
            }
            if channel.isClosed { return false }
        }
    }

    /// Reads one response; `head`: it answers a HEAD (no body whatever Content-Length says).
    func response(head: Bool = false) throws -> RawResponse {
        let end = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while true {
            if let r = input.firstRange(of: end) {
                headEnd = r.upperBound
                break
            }
            guard try fill() else { throw ClientError("closed before a whole response head (\(input.count) bytes)") }
        }
        let headText = String(decoding: input[0..<headEnd!], as: UTF8.self)
        input.removeFirst(headEnd!)
        var lines = headText.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0] == "HTTP/1.1", let status = Int(parts[1]) else {
            throw ClientError("not a status line: \(statusLine)")
        }
        var headers = HTTPHeaders()
        for line in lines {
            let kv = line.split(separator: ":", maxSplits: 1)
            headers.add(String(kv[0]), String(kv.count > 1 ? kv[1] : "").trimmingCharacters(in: .whitespaces))
        }
        var body: [UInt8] = []
        if !head, (200...999).contains(status), status != 204, status != 304 {
            guard let length = headers["Content-Length"].flatMap({ Int($0) }) else { throw ClientError("no Content-Length") }
            while input.count < length {
                guard try fill() else { throw ClientError("closed in a body") }
            }
            body = Array(input[0..<length])
            input.removeFirst(length)
        }
        return RawResponse(status: status, reason: parts.count > 2 ? String(parts[2]) : "", headers: headers, body: body)
    }

    /// Sends `request` and reads its response.
    func exchange(_ request: String) throws -> RawResponse {
        try send(request)
        return try response(head: request.hasPrefix("HEAD "))
    }

    /// True when the server closes the connection (end of stream or reset) within the receive
    /// timeout, with no more response bytes first.
    func isClosedByServer() -> Bool {
        do {
            return try !fill() && input.isEmpty
        } catch let error as PosixError {
            return error.isDisconnect
        } catch {
            return false
        }
    }
}

/// A GET with the headers a client sends.
func get(_ target: String, _ extra: String = "") -> String {
    "GET \(target) HTTP/1.1\r\nHost: test\r\n\(extra)\r\n"
}

/// A POST of `body`.
func post(_ target: String, _ body: String, _ extra: String = "") -> String {
    "POST \(target) HTTP/1.1\r\nHost: test\r\nContent-Length: \(body.utf8.count)\r\n\(extra)\r\n\(body)"
}

/// Polls `condition` every 5 ms, at most `attempts` times; true when it held.
func eventually(attempts: Int = 2000, _ condition: () -> Bool) -> Bool {
    for _ in 0..<attempts {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.005)
    }
    return condition()
}
