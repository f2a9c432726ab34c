import CommandSupport
import KVCConfig

extension Arguments {
    /// `--app-version VERSION`, at most once: a version such as 1.2.0, or a usage error.
    mutating func appVersionOption() throws(UsageError) -> AppVersion? {
        guard let text = try option("app-version") else { return nil }
        guard let v = AppVersion(text) else {
            throw UsageError("option --app-version takes a version such as 1.2.0 (numbers joined by dots), not '\(text)'")
        }
        return v
    }
}
