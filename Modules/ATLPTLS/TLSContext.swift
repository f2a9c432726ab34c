import COpenSSL
public import SecureChannel
import Synchronization

/// An OpenSSL context: the certificate and key of a server, or the trusted authorities of a
/// client, from which one `SecureChannel` per connection is made. TLS 1.2 at least.
public final class TLSContext: Sendable {
    /// `SSL_CTX` is set up once, then only used to make sessions; the mutex makes that use
    /// provably exclusive rather than relying on OpenSSL's own locking.
    private let context: Mutex<OpaquePointer>
    let isServer: Bool
    /// A server's certificate that is expired or not yet valid, said in a sentence (when it
    /// expired or starts, and what clients do); nil when it is valid now, and for a client.
    /// The server starts anyway (the certificate may be renewed while it runs), but clients that
    /// verify it refuse every connection.
    public let certificateValidityProblem: String?

    private init(_ context: sending OpaquePointer, isServer: Bool, certificateValidityProblem: String? = nil) {
        self.certificateValidityProblem = certificateValidityProblem
        self.context = Mutex(context)
        self.isServer = isServer
    }

    deinit {
        context.withLock { SSL_CTX_free($0) }
    }

    /// A server context from PEM files: the certificate (chain) and its private key.
    public static func server(certificateFile: String, keyFile: String) throws(SecureChannelError) -> TLSContext {
        let context = try make(TLS_server_method(), "server")
        guard SSL_CTX_use_certificate_chain_file(context, certificateFile) == 1 else {
            SSL_CTX_free(context)
            throw OpenSSLError.take("cannot load the TLS certificate \(certificateFile) (a PEM file is expected)")
        }
        guard SSL_CTX_use_PrivateKey_file(context, keyFile, SSL_FILETYPE_PEM) == 1 else {
            SSL_CTX_free(context)
            throw OpenSSLError.take("cannot load the TLS private key \(keyFile) (a PEM file is expected)")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            SSL_CTX_free(context)
            throw OpenSSLError.take("the key \(keyFile) does not belong to the certificate \(certificateFile)")
        }
        let problem = SSL_CTX_get0_certificate(context).flatMap { validityProblem($0, file: certificateFile) }
        return TLSContext(context, isServer: true, certificateValidityProblem: problem)
    }

    /// Why `certificate` is not valid now (its notBefore is ahead, or its notAfter behind), or nil.
    private static func validityProblem(_ certificate: OpaquePointer, file: String) -> String? {
        let consequence = "clients that verify it (every Autotrack agent with --tls) refuse to connect"
        if let start = X509_get0_notBefore(certificate), X509_cmp_current_time(start) > 0 {
            return "the TLS certificate \(file) is not valid yet: its validity starts \(text(start)); \(consequence); "
                + "check this machine's clock, or use a certificate valid now"
        }
        if let end = X509_get0_notAfter(certificate), X509_cmp_current_time(end) < 0 {
            return "the TLS certificate \(file) expired \(text(end)); \(consequence); renew it (for example "
                + "'openssl req -x509 -days 365 …' for a self-signed one) and restart serve"
        }
        return nil
    }

    /// An ASN.1 time as `2026-01-31T12:00:00Z`.
    private static func text(_ time: UnsafePointer<ASN1_TIME>) -> String {
        var t = tm()
        guard ASN1_TIME_to_tm(time, &t) == 1 else { return "at an unreadable time" }
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "on \(t.tm_year + 1900)-\(two(t.tm_mon + 1))-\(two(t.tm_mday))T\(two(t.tm_hour)):\(two(t.tm_min)):\(two(t.tm_sec))Z"
    }

    /// A client context that trusts the authorities in `caFile` (PEM), or the system's trust
    /// store when nil; the server's certificate is always verified.
    public static func client(trusting caFile: String?) throws(SecureChannelError) -> TLSContext {
        let context = try make(TLS_client_method(), "client")
        SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        let loaded =
            caFile.map { SSL_CTX_load_verify_locations(context, $0, nil) } ?? SSL_CTX_set_default_verify_paths(context)
        guard loaded == 1 else {
            SSL_CTX_free(context)
            throw OpenSSLError.take(
                caFile.map { "cannot load the certificate authorities in \($0) (a PEM file is expected)" }
                    ?? "cannot load the system's trusted certificate authorities")
        }
        return TLSContext(context, isServer: false)
    }

    private static func make(_ method: OpaquePointer?, _ side: String) throws(SecureChannelError) -> OpaquePointer {
        guard let context = SSL_CTX_new(method) else { throw OpenSSLError.take("cannot create a TLS \(side) context") }
        _ = cossl_set_min_tls12(context)
        return context
    }

    /// One channel per connection: a server's for the connections it accepts; a client's for a
    /// connection to `host` (an IP address or a DNS name), whose certificate must name it.
    public var channels: SecureChannelFactory {
        { (host) throws(SecureChannelError) -> any SecureChannel in
            try self.channel(verifying: self.isServer ? nil : host)
        }
    }

    private func channel(verifying host: String?) throws(SecureChannelError) -> any SecureChannel {
        let ssl = context.withLock { SSL_new($0) }
        guard let ssl else { throw OpenSSLError.take("cannot create a TLS session") }
        return try OpenSSLChannel(ssl, isServer: isServer, verifying: host)
    }
}
