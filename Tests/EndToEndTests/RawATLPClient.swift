#if canImport(Glibc)
import Glibc
#endif

/// A third-party ATLP/1 client in a page of code, as wire.md promises one can be: blocking
/// IPv4 sockets with receive timeouts. Tests use it to send what `send` would never send
/// (events that break the contract) and to check the framing from outside.
final class RawATLPClient {
    private let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to `127.0.0.1:port`; every receive gives up after `timeoutSeconds`.
    init(port: UInt16, timeoutSeconds: Int = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError(description: "socket() failed: errno \(errno)") }
        var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            close(fd)
            throw HarnessError(description: "connect(127.0.0.1:\(port)) failed: errno \(errno)")
        }
    }

    deinit { close(fd) }

    /// Sends one frame (`<length> <payload>`) and returns the payload of the answer frame.
    func request(_ payload: String) throws -> String {
        let body = Array(payload.utf8)
        let frame = Array("\(body.count) ".utf8) + body
        var sent = 0
        while sent < frame.count {
            let n = frame[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw HarnessError(description: "send failed: errno \(errno)") }
            sent += n
        }
        return try receiveFrame()
    }

    private func receiveFrame() throws -> String {
        while true {
            if let space = buffer.firstIndex(of: 0x20), let length = Int(String(decoding: buffer[..<space], as: UTF8.self)),
                buffer.count >= space + 1 + length
            {
                let payload = String(decoding: buffer[(space + 1)..<(space + 1 + length)], as: UTF8.self)
                buffer.removeSubrange(0..<(space + 1 + length))
                return payload
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else {
                throw HarnessError(description: "the connection ended (or timed out) before a whole frame: errno \(errno)")
            }
            buffer.append(contentsOf: chunk[0..<n])
        }
    }
}
