/// How `autotrack-agent run` configures the preload library in the program it starts: environment
/// variables, read by the library's constructor (docs/gtk.md "The preload library").
public struct LaunchSettings: Sendable, Hashable {
    /// `AUTOTRACK_TO`: the collectors, `HOST:PORT` each, joined with `,` (the first is used, the
    /// others are failover, in order); empty writes NDJSON to `out` instead.
    public var collectors: [String]
    /// `AUTOTRACK_TLS=1`: speak TLS to the collectors, trusting the system's authorities...
    public var tls: Bool
    /// `AUTOTRACK_TLS_CA`: ...or the authority in this PEM file (implies `tls`).
    public var tlsAuthorityFile: String?
    /// `AUTOTRACK_TOKEN`: the collector's ingest token.
    public var token: String?
    /// `AUTOTRACK_APP_KEY`.
    public var appKey: String
    /// `AUTOTRACK_APP_VERSION`.
    public var appVersion: String
    /// `AUTOTRACK_CONFIG`: configuration files, joined with `:` like `PATH`.
    public var configFiles: [String]
    /// `AUTOTRACK_SPOOL`: the shipper's spool directory.
    public var spoolDirectory: String
    /// `AUTOTRACK_TREE_DIR`: where entered pages' widget trees are written; nil writes none.
    public var treeDirectory: String?
    /// `AUTOTRACK_OUT`: the NDJSON file without a collector; nil is standard error.
    public var out: String?
    /// `AUTOTRACK_CONFIG_REFRESH`: seconds between the tracker's `CONFIG` requests; nil keeps the
    /// library's default (60). Written here, parsed once, by the tracker
    /// (`TrackerSettings.applying(environment:)`, which checks it): `init(environment:)` leaves it nil.
    public var configRefresh: Double?
    /// `AUTOTRACK_SNAPSHOTS=1`: circle mode forced on, snapshots of every page sent to the
    /// collector whatever its `CONFIG` answers say (docs/gtk.md "Snapshots").
    public var snapshots: Bool
    /// `AUTOTRACK_DEBUG=1`: debug mode, one line per interaction on standard error with the rules
    /// that matched or the nearest rule (docs/agent.md "Debug mode"); the tracker reads it.
    public var debug: Bool

    public static let collectorKey = "AUTOTRACK_TO"
    public static let tlsKey = "AUTOTRACK_TLS"
    public static let tlsAuthorityKey = "AUTOTRACK_TLS_CA"
    public static let tokenKey = "AUTOTRACK_TOKEN"
    public static let appKeyKey = "AUTOTRACK_APP_KEY"
    public static let appVersionKey = "AUTOTRACK_APP_VERSION"
    public static let configKey = "AUTOTRACK_CONFIG"
    public static let spoolKey = "AUTOTRACK_SPOOL"
    public static let treeDirectoryKey = "AUTOTRACK_TREE_DIR"
    public static let outKey = "AUTOTRACK_OUT"
    public static let configRefreshKey = "AUTOTRACK_CONFIG_REFRESH"
    public static let snapshotsKey = "AUTOTRACK_SNAPSHOTS"
    public static let debugKey = "AUTOTRACK_DEBUG"
    public static let allKeys = [
        collectorKey, tlsKey, tlsAuthorityKey, tokenKey, appKeyKey, appVersionKey, configKey, spoolKey, treeDirectoryKey, outKey, configRefreshKey,
        snapshotsKey, debugKey,
    ]

    /// The app version when none is given.
    public static let defaultAppVersion = "0.0.0"

    public init(
        collectors: [String] = [], tls: Bool = false, tlsAuthorityFile: String? = nil, token: String? = nil, appKey: String, appVersion: String = LaunchSettings.defaultAppVersion,
        configFiles: [String] = [], spoolDirectory: String? = nil, treeDirectory: String? = nil, out: String? = nil,
        configRefresh: Double? = nil, snapshots: Bool = false, debug: Bool = false, home: String? = nil
    ) {
        self.collectors = collectors
        self.tls = tls || tlsAuthorityFile != nil
        self.tlsAuthorityFile = tlsAuthorityFile
        self.token = token
        self.appKey = appKey
        self.appVersion = appVersion
        self.configFiles = configFiles
        self.spoolDirectory = spoolDirectory ?? LaunchSettings.defaultSpool(appKey: appKey, home: home)
        self.treeDirectory = treeDirectory
        self.out = out
        self.configRefresh = configRefresh
        self.snapshots = snapshots
        self.debug = debug
    }

    /// `$HOME/.local/state/autotrack/spool/<app key>` (or under /tmp without a home): the same
    /// directory every run of the app, so what one run did not deliver the next one sends.
    public static func defaultSpool(appKey: String, home: String?) -> String {
        let base = (home?.isEmpty == false ? home! + "/.local/state" : "/tmp") + "/autotrack/spool/"
        return base + String(appKey.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" })
    }

    /// Reads the settings from an environment; the app key defaults to `program`'s file name.
    /// `AUTOTRACK_CONFIG_REFRESH` is the tracker's to read (`TrackerSettings`), so it is parsed once.
    public init(environment env: [String: String], program: String) {
        func value(_ key: String) -> String? { env[key].flatMap { $0.isEmpty ? nil : $0 } }
        let key = value(LaunchSettings.appKeyKey) ?? String(program.split(separator: "/").last ?? "app")
        self.init(
            collectors: value(LaunchSettings.collectorKey).map { $0.split(separator: ",").map(String.init) } ?? [],
            tls: value(LaunchSettings.tlsKey) == "1", tlsAuthorityFile: value(LaunchSettings.tlsAuthorityKey), token: value(LaunchSettings.tokenKey), appKey: key,
            appVersion: value(LaunchSettings.appVersionKey) ?? LaunchSettings.defaultAppVersion,
            configFiles: value(LaunchSettings.configKey).map { $0.split(separator: ":").map(String.init) } ?? [],
            spoolDirectory: value(LaunchSettings.spoolKey), treeDirectory: value(LaunchSettings.treeDirectoryKey),
            out: value(LaunchSettings.outKey),
            snapshots: value(LaunchSettings.snapshotsKey) == "1", debug: value(LaunchSettings.debugKey) == "1", home: env["HOME"])
    }

    /// The environment variables that carry these settings.
    public var environment: [String: String] {
        var env = [
            LaunchSettings.appKeyKey: appKey, LaunchSettings.appVersionKey: appVersion,
            LaunchSettings.spoolKey: spoolDirectory,
        ]
        if !collectors.isEmpty { env[LaunchSettings.collectorKey] = collectors.joined(separator: ",") }
        if tls { env[LaunchSettings.tlsKey] = "1" }
        if let tlsAuthorityFile { env[LaunchSettings.tlsAuthorityKey] = tlsAuthorityFile }
        if let token { env[LaunchSettings.tokenKey] = token }
        if !configFiles.isEmpty { env[LaunchSettings.configKey] = configFiles.joined(separator: ":") }
        if let treeDirectory { env[LaunchSettings.treeDirectoryKey] = treeDirectory }
        if let out { env[LaunchSettings.outKey] = out }
        if let configRefresh { env[LaunchSettings.configRefreshKey] = "\(configRefresh)" }
        if snapshots { env[LaunchSettings.snapshotsKey] = "1" }
        if debug { env[LaunchSettings.debugKey] = "1" }
        return env
    }
}
