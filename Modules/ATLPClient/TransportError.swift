public import ATLPWire
public import SystemCalls

/// Why a client-side exchange failed: a system call, an `ERR` from the collector, a reply
/// that breaks the protocol, a timeout, or the peer closing.
public struct TransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: String, Sendable, Hashable {
        /// A system call failed (`cause` has errno).
        case system
        /// The collector answered `ERR` (`remote` has its code and message).
        case remote
        /// The collector sent something ATLP/1 does not allow here.
        case protocolViolation
        /// No answer within the timeout.
        case timedOut
        /// The collector closed the connection.
        case closed
        /// The secure channel (TLS) failed: a handshake refused, a certificate not trusted.
        case security
    }

    public var code: Code
    public var message: String
    public var cause: PosixError?
    public var remote: ATLPError?

    public init(_ code: Code, _ message: String, cause: PosixError? = nil, remote: ATLPError? = nil) {
        self.code = code
        self.message = message
        self.cause = cause
        self.remote = remote
    }

    static func system(_ error: PosixError) -> TransportError {
        TransportError(.system, error.description, cause: error)
    }

    static func remote(_ error: ATLPError, from address: SocketAddress) -> TransportError {
        if error.code == .tlsRequired {
            return TransportError(
                .remote,
                "the collector at \(address) expects TLS: add --tls (and --tls-ca FILE when its certificate is not from a "
                    + "system authority)", remote: error)
        }
        return TransportError(.remote, "the collector at \(address) answered ERR \(error.code.rawValue): \(error.message)", remote: error)
    }

    /// A TLS handshake answered in plain ATLP (`reply`: the first bytes received): the port
    /// does not speak TLS. Nil when `reply` is not a plain frame.
    static func plainAnswer(reply: [UInt8], from address: SocketAddress) -> TransportError? {
        guard let first = reply.first, (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(first) else { return nil }
        var decoder = FrameDecoder(maxFrame: 1 << 16)
        decoder.append(reply)
        guard let payload = try? decoder.next(), let frame = try? ATLPFrame.parse(payload: payload) else { return nil }
        let said = frame.verb == "ERR" ? ": \(ATLPError(errFrame: frame).message)" : ""
        return TransportError(
            .security, "the collector at \(address) does not speak TLS on this port (it answered in plain ATLP\(said)); "
                + "connect without --tls, or to its TLS port")
    }

    public var description: String { message }
}
