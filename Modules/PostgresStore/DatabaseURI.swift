import Foundation

/// The one place that keeps a database password out of what Autotrack prints: messages, log
/// lines, report headers.
public enum DatabaseURI {
    /// `text` without the password of the connection URI `uri`: `uri` itself becomes its form
    /// without a password (`postgresql://u:secret@h/db?password=x&sslmode=require` →
    /// `postgresql://u@h/db?sslmode=require`), and every other appearance of a password (as
    /// written, or percent-decoded), such as a token libpq echoes in its error, becomes `***`.
    /// Text about a plain file path (no `://`) is returned as it is.
    public static func redacting(_ text: String, secretsOf uri: String) -> String {
        guard uri.contains("://") else { return text }
        let (bare, secrets) = split(uri)
        var out = text.replacingOccurrences(of: uri, with: bare)
        // Longest first, so a password holding another (its decoded form) leaves no piece behind.
        for secret in secrets.sorted(by: { $0.count > $1.count }) {
            out = out.replacingOccurrences(of: secret, with: "***")
        }
        return out
    }

    /// `uri` without its password: what messages and `CollectorStore.location` show.
    public static func redacted(_ uri: String) -> String { redacting(uri, secretsOf: uri) }

    /// The URI without passwords, and the passwords it holds (as written and percent-decoded).
    private static func split(_ uri: String) -> (bare: String, secrets: Set<String>) {
        var s = uri
        var secrets: Set<String> = []
        func keep(_ secret: Substring) {
            guard !secret.isEmpty else { return }
            secrets.insert(String(secret))
            if let decoded = secret.removingPercentEncoding, !decoded.isEmpty { secrets.insert(decoded) }
        }
        if let scheme = s.range(of: "://") {
            let authorityEnd = s[scheme.upperBound...].firstIndex(where: { $0 == "/" || $0 == "?" }) ?? s.endIndex
            if let at = s[scheme.upperBound..<authorityEnd].lastIndex(of: "@"),
                let colon = s[scheme.upperBound..<at].firstIndex(of: ":")
            {
                keep(s[s.index(after: colon)..<at])
                s.removeSubrange(colon..<at)
            }
        }
        if let q = s.firstIndex(of: "?") {
            var kept: [Substring] = []
            for parameter in s[s.index(after: q)...].split(separator: "&") {
                if parameter.hasPrefix("password=") {
                    keep(parameter.dropFirst("password=".count))
                } else {
                    kept.append(parameter)
                }
            }
            s = String(s[..<q]) + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
        }
        return (s, secrets)
    }
}
