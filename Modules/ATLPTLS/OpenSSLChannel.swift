import COpenSSL
import SecureChannel

/// One TLS session over memory BIOs: OpenSSL never touches the socket, so the caller keeps its
/// own (non-blocking, fault-injectable) I/O and only moves bytes in and out.
final class OpenSSLChannel: SecureChannel {
    private let ssl: OpaquePointer
    private let incoming: OpaquePointer
    private let outgoing: OpaquePointer
    private var pending: [UInt8] = []
    private(set) var isClosed = false

    init(_ ssl: OpaquePointer, isServer: Bool, verifying host: String?) throws(SecureChannelError) {
        self.ssl = ssl
        guard let incoming = BIO_new(BIO_s_mem()), let outgoing = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw OpenSSLError.take("cannot create the TLS buffers")
        }
        self.incoming = incoming
        self.outgoing = outgoing
        SSL_set_bio(ssl, incoming, outgoing)  // the session owns them now
        if isServer {
            SSL_set_accept_state(ssl)
        } else {
            SSL_set_connect_state(ssl)
            if let host {
                let param = SSL_get0_param(ssl)
                let isAddress = host.contains(":") || host.allSatisfy { $0.isNumber || $0 == "." }
                let set = isAddress ? X509_VERIFY_PARAM_set1_ip_asc(param, host) : X509_VERIFY_PARAM_set1_host(param, host, 0)
                if !isAddress { _ = cossl_set_server_name(ssl, host) }
                guard set == 1 else { throw OpenSSLError.take("cannot verify certificates for \(host)") }
            }
        }
    }

    deinit {
        SSL_free(ssl)
    }

    var isEstablished: Bool { SSL_is_init_finished(ssl) == 1 }

    func start() throws(SecureChannelError) {
        try handshake()
    }

    func receive(_ ciphertext: ArraySlice<UInt8>) throws(SecureChannelError) {
        var offset = 0
        while offset < ciphertext.count {
            let n = ciphertext.withUnsafeBytes { BIO_write(incoming, $0.baseAddress! + offset, Int32($0.count - offset)) }
            guard n > 0 else { throw OpenSSLError.take("cannot buffer received TLS data") }
            offset += Int(n)
        }
        try handshake()
    }

    func readPlaintext() throws(SecureChannelError) -> [UInt8] {
        guard isEstablished else { return [] }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = chunk.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
            if n > 0 {
                out += chunk[0..<Int(n)]
                continue
            }
            switch SSL_get_error(ssl, n) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                return out
            case SSL_ERROR_ZERO_RETURN:
                isClosed = true
                return out
            default:
                throw OpenSSLError.take("TLS record refused")
            }
        }
    }

    func send(_ plaintext: [UInt8]) throws(SecureChannelError) {
        pending += plaintext
        try flushPending()
    }

    func takeCiphertext() -> [UInt8] {
        let count = Int(BIO_ctrl_pending(outgoing))
        guard count > 0 else { return [] }
        var out = [UInt8](repeating: 0, count: count)
        let n = out.withUnsafeMutableBytes { BIO_read(outgoing, $0.baseAddress, Int32(count)) }
        return n > 0 ? Array(out[0..<Int(n)]) : []
    }

    /// Moves the handshake on as far as the bytes received allow; then sends what waited for it.
    private func handshake() throws(SecureChannelError) {
        if !isEstablished {
            let r = SSL_do_handshake(ssl)
            if r != 1 {
                switch SSL_get_error(ssl, r) {
                case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return
                default:
                    let verify = SSL_get_verify_result(ssl)
                    var what = "TLS handshake failed"
                    if verify != Int(X509_V_OK), let text = X509_verify_cert_error_string(verify) {
                        what += " (certificate: \(String(cString: text)))"
                    }
                    throw OpenSSLError.take(what)
                }
            }
        }
        try flushPending()
    }

    private func flushPending() throws(SecureChannelError) {
        guard isEstablished, !pending.isEmpty else { return }
        let n = pending.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
        guard n > 0 else { throw OpenSSLError.take("cannot encrypt data for the peer") }
        pending.removeFirst(Int(n))
        if !pending.isEmpty { try flushPending() }
    }
}
