import CommandSupport
import KVCConfig

/// The options several agent commands take, declared once; a command may describe one in its own words.
enum AgentOptions {
    /// `--config FILE ...`: configuration documents, merged in order.
    static let config = Option.repeatable(
        "config", "FILE", help: "a configuration document; several merge", missing: "missing required option --config FILE (give it once per file)")
    /// `--app-key KEY`.
    static let appKey = Option.single("app-key", "KEY", help: "only rules of this app key")
    /// `--app-version VERSION`, read with `Arguments.appVersion(_:)`.
    static let appVersion = Option.single(
        "app-version", "VERSION", help: "only rules whose appVersion range holds for VERSION (such as 1.2.0)")
    /// `--token TOKEN`: the ingest token a client sends in HELLO.
    static let ingestToken = Option.single("token", "TOKEN", help: "the collector's ingest token", environment: "AUTOTRACK_INGEST_TOKEN")
    /// `--debug`: the tracker's debug mode (docs/agent.md "Debug mode").
    static let debug = Option.flag(
        "debug",
        help: "one line per interaction on standard error: the rules that matched and the values read, or the nearest rule and where its "
            + "path differs")
    /// `--timeout SECONDS`: how long a client waits for acknowledgements.
    static let timeout = Option.single("timeout", "SECONDS", help: "how long to wait for acknowledgements", default: "30")
}

extension Arguments {
    /// A version such as 1.2.0 given to `option` (at most once), or a usage error.
    mutating func appVersion(_ option: Option) throws(UsageError) -> AppVersion? {
        guard let text = try value(option) else { return nil }
        guard let v = AppVersion(text) else {
            throw UsageError("option --\(option.name) takes a version such as 1.2.0 (numbers joined by dots), not '\(text)'")
        }
        return v
    }
}
