import ATLPWire
import SystemCalls

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
        TransportError(.remote, "the collector at \(address) answered ERR \(error.code.rawValue): \(error.message)", remote: error)
    }

    public var description: String { message }
}
