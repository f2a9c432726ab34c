#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A numeric IPv4 or IPv6 address and a port (`localhost` is read as `127.0.0.1`).
///
/// Names are not resolved: the agent and collector talk to configured addresses, and a
/// DNS lookup would be a hidden blocking call with its own failure modes.
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public init(host: String, port: UInt16) {
        self.host = host == "localhost" ? "127.0.0.1" : host
        self.port = port
    }

    /// True for an IPv6 host (it holds a colon).
    public var isIPv6: Bool { host.contains(":") }

    package var family: Int32 { isIPv6 ? AF_INET6 : AF_INET }

    /// `127.0.0.1:7070`, or `[::1]:7070` for IPv6.
    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Builds the C address, or fails with `EINVAL` naming the host when it is not numeric.
    package func withSockAddr<R>(
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws(PosixError) -> R
    ) throws(PosixError) -> R {
        if isIPv6 {
            var a = sockaddr_in6()
            a.sin6_family = sa_family_t(AF_INET6)
            a.sin6_port = port.bigEndian
            guard inet_pton(AF_INET6, host, &a.sin6_addr) == 1 else {
                throw PosixError("inet_pton(\(host)): not a numeric IPv6 address", errno: EINVAL)
            }
            return try Self.asSockAddr(&a, body)
        }
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &a.sin_addr) == 1 else {
            throw PosixError("inet_pton(\(host)): not a numeric IPv4 address (names are not resolved)", errno: EINVAL)
        }
        return try Self.asSockAddr(&a, body)
    }

    private static func asSockAddr<A, R>(
        _ address: inout A, _ body: (UnsafePointer<sockaddr>, socklen_t) throws(PosixError) -> R
    ) throws(PosixError) -> R {
        try withUnsafePointer(to: &address) { (p) throws(PosixError) -> R in
            try p.withMemoryRebound(to: sockaddr.self, capacity: 1) { (sa) throws(PosixError) -> R in
                try body(sa, socklen_t(MemoryLayout<A>.size))
            }
        }
    }

    /// Reads a C address (IPv4 or IPv6).
    package init?(_ storage: sockaddr_storage) {
        var s = storage
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(s.ss_family) {
        case AF_INET:
            let (addr, port) = withUnsafePointer(to: &s) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ($0.pointee.sin_addr, $0.pointee.sin_port) }
            }
            var a = addr
            guard inet_ntop(AF_INET, &a, &buffer, socklen_t(buffer.count)) != nil else { return nil }
            self.init(host: String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self), port: UInt16(bigEndian: port))
        case AF_INET6:
            let (addr, port) = withUnsafePointer(to: &s) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ($0.pointee.sin6_addr, $0.pointee.sin6_port) }
            }
            var a = addr
            guard inet_ntop(AF_INET6, &a, &buffer, socklen_t(buffer.count)) != nil else { return nil }
            self.init(host: String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self), port: UInt16(bigEndian: port))
        default:
            return nil
        }
    }
}
