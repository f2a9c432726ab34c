/// A security layer (TLS) over a byte stream whose socket I/O the caller does itself: ciphertext
/// the peer sent goes in, plaintext for the application comes out, and the other way round. The
/// ATLP client and server speak through it when one is given, so they need no TLS library
/// themselves (the `ATLPTLS` module implements it with OpenSSL). One instance per connection,
/// used by one thread at a time.
public protocol SecureChannel: AnyObject {
    /// Begins the handshake (a client's first message appears in `takeCiphertext()`).
    func start() throws(SecureChannelError)
    /// Ciphertext received from the peer.
    func receive(_ ciphertext: ArraySlice<UInt8>) throws(SecureChannelError)
    /// The plaintext decrypted so far (empty during the handshake).
    func readPlaintext() throws(SecureChannelError) -> [UInt8]
    /// Encrypts `plaintext` for the peer; held back until the handshake is done.
    func send(_ plaintext: [UInt8]) throws(SecureChannelError)
    /// Ciphertext to write to the socket now: handshake messages, encrypted data, alerts.
    func takeCiphertext() -> [UInt8]
    /// The handshake is done (and, for a client, the peer's certificate verified).
    var isEstablished: Bool { get }
    /// The peer ended the session (a TLS close_notify).
    var isClosed: Bool { get }
}

/// Makes one `SecureChannel` per connection. A client's channel verifies that the server's
/// certificate names `host` (the address connected to); a server's ignores it (the peer's address).
public typealias SecureChannelFactory = @Sendable (_ host: String) throws(SecureChannelError) -> any SecureChannel

/// Why a secure channel failed: a handshake refused, a certificate not trusted, a damaged record.
public struct SecureChannelError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
