import COpenSSL
import SecureChannel

/// OpenSSL's error queue, read into a `SecureChannelError`.
enum OpenSSLError {
    /// `what`, followed by the reasons OpenSSL queued on this thread (which are cleared).
    static func take(_ what: String) -> SecureChannelError {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return SecureChannelError(reasons.isEmpty ? what : what + ": " + reasons.joined(separator: "; "))
    }
}
