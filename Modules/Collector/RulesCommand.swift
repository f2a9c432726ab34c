import ATLPClient
import ATLPWire
import CommandSupport
import EventModel
import EventStore
import Foundation
import KVCConfig
import SystemCalls

/// `rules`: publishes rule files to a running collector, or lists what a database holds.
public struct RulesCommand: Command {
    public static let name = "rules"
    public static let abstract = "publishes KVC rule files to a collector, or lists the published rules"
    public static let help = """
        USAGE: autotrack-collector rules publish FILE... --to HOST:PORT --token TOKEN [--sample-rate R]
               autotrack-collector rules list [--db FILE] [--app KEY]

        publish  loads the files (JSON or XML plist, docs/config.md), merges them, checks every rule,
                 and sends the rules in one PUBLISH over ATLP/1 with a HELLO carrying the admin
                 token. For each app key among the rules, the collector replaces that app's rules
                 with these (and the sampling rate, default 1). Prints 'stored N rules at
                 HOST:PORT' ('1 rule'). A collector that refuses the connection (one just
                 started, not listening yet) is retried for up to 5 s, at growing intervals.
        list     prints a table of the rules published in a database, with each app's
                 sampling rate; the database is only read.

        OPTIONS:
          --to HOST:PORT   the collector to publish to
          --token TOKEN    the collector's admin token (also $AUTOTRACK_ADMIN_TOKEN)
          --timeout SECS   give up on a silent collector after this long (default 10)
          --sample-rate R  the share of devices (0 to 1) whose events the apps send (default 1:
                           all); agents pick devices by a hash of their id (docs/wire.md)
          --db FILE|URI    for list: the database (default ./autotrack.sqlite), or a postgresql:// URI
          --app KEY        for list: only this app key's rules

        EXAMPLES:
          autotrack-collector serve --listen 127.0.0.1:7070 --db shop.sqlite --admin-token "$ADMIN" &
          autotrack-collector rules publish Examples/shop-rules.json --to 127.0.0.1:7070 --token "$ADMIN"
          autotrack-collector rules list --db shop.sqlite

        """

    /// What to do.
    public enum Action: Sendable {
        case publish(files: [String], to: HostPort, token: String, timeout: Double, sampleRate: Double?)
        case list(database: String, appKey: String?)
    }

    public var action: Action

    public init(arguments: inout Arguments) throws(UsageError) {
        let to = try arguments.option("to")
        let token = try arguments.option("token")
        let timeout = try arguments.doubleOption("timeout", in: 0.1...3600)
        let sampleRate = try arguments.doubleOption("sample-rate", in: StoredRuleSet.sampleRates)
        let db = try arguments.option("db")
        let app = try arguments.option("app")
        var rest = try arguments.positionals()
        guard !rest.isEmpty else { throw UsageError("say what to do: 'rules publish FILE...' or 'rules list'") }
        let verb = rest.removeFirst()
        switch verb {
        case "publish":
            if db != nil || app != nil { throw UsageError("--db and --app belong to 'rules list'; publish sends to --to") }
            guard !rest.isEmpty else { throw UsageError("rules publish needs at least one rule file") }
            guard let to else { throw UsageError("rules publish needs --to HOST:PORT (the collector)") }
            guard let token = token ?? ProcessInfo.processInfo.environment["AUTOTRACK_ADMIN_TOKEN"], !token.isEmpty else {
                throw UsageError("rules publish needs --token TOKEN (the collector's --admin-token)")
            }
            action = .publish(files: rest, to: try HostPort(to), token: token, timeout: timeout ?? 10, sampleRate: sampleRate)
        case "list":
            if to != nil || token != nil || timeout != nil || sampleRate != nil {
                throw UsageError("--to, --token, --timeout and --sample-rate belong to 'rules publish'")
            }
            if let extra = rest.first { throw UsageError("rules list takes no file ('\(extra)'); use --db FILE") }
            action = .list(database: db ?? "./autotrack.sqlite", appKey: app)
        default:
            throw UsageError("unknown rules action '\(verb)'; use 'publish' or 'list'")
        }
    }

    public func run(io: any OutputStreams) -> ExitCode {
        switch action {
        case .publish(let files, let to, let token, let timeout, let sampleRate):
            return publish(files, to: to, token: token, timeout: timeout, sampleRate: sampleRate, io: io)
        case .list(let database, let appKey): return list(database, appKey: appKey, io: io)
        }
    }

    private func publish(
        _ files: [String], to: HostPort, token: String, timeout: Double, sampleRate: Double?, io: any OutputStreams
    ) -> ExitCode {
        let plan: TrackingPlan
        do throws(ConfigError) {
            plan = try TrackingPlan.load(files: files)
        } catch {
            io.printError("autotrack-collector rules publish: the rule files have problems; nothing was sent:")
            for p in error.problems { io.printError("  \(p)") }
            return .failure
        }
        guard !plan.rules.isEmpty else {
            io.printError(
                "autotrack-collector rules publish: \(files.joined(separator: ", ")) hold no KVC rules "
                    + "(a {\"rules\": [...]} document, docs/config.md §3); nothing was sent")
            return .failure
        }
        let address = SocketAddress(host: to.host, port: to.port)
        let hello = Hello(appKey: plan.rules[0].appKey, agent: "autotrack-collector rules publish", token: token)
        do throws(TransportError) {
            let connection = try ATLPConnection.connect(
                to: address, hello: hello, timeout: .milliseconds(Int64((timeout * 1000).rounded())))
            defer { connection.close() }
            let stored = try connection.publish(rules: plan.rules.map(\.json), sampleRate: sampleRate)
            io.print("stored \(stored) \(stored == 1 ? "rule" : "rules") at \(address)")
            return .success
        } catch {
            var message = "autotrack-collector rules publish: \(error)"
            switch error.remote?.code {
            case .forbidden?, .unauthorized?: message += "\nGive the collector's --admin-token with --token."
            default: break
            }
            if error.code == .system || error.code == .timedOut {
                message += "\nIs 'autotrack-collector serve' running at \(address)?"
            }
            io.printError(message)
            return .failure
        }
    }

    private func list(_ database: String, appKey: String?, io: any OutputStreams) -> ExitCode {
        guard let sets = readStore(database, command: "autotrack-collector rules list", io: io, { store throws(StoreError) in
            try store.ruleSets(appKey: appKey)
        }) else { return .failure }
        guard sets.contains(where: { !$0.rules.isEmpty }) else {
            io.print(appKey.map { "no rules published for app \($0)" } ?? "no rules published")
            return .success
        }
        let header = [
            "app", "id", "app version", "view event", "view path", "key path", "key name", "content", "sample rate", "published",
        ]
        var rows: [[String]] = []
        for set in sets {
            for stored in set.rules {
                guard let r = stored.rule else {
                    rows.append([set.appKey, stored.id, "(does not parse: \(stored.json))", "", "", "", "", "", "", ""])
                    continue
                }
                rows.append([
                    r.appKey, r.id, r.appVersion.text, r.viewEvent.rawValue, r.viewPath.text, r.keyPath.text, r.keyName,
                    r.content ?? "-", JSONValue.double(set.sampleRate).jsonText, Self.timestamp(stored.publishedAt),
                ])
            }
        }
        io.out(TextTable(header: header, rows: rows).text)
        return .success
    }

    /// `2026-11-21T23:40:00Z`: UTC, so listings from different machines compare.
    static func timestamp(_ milliseconds: Int64) -> String {
        let f = ISO8601DateFormatter()
        f.timeZone = TimeZone(identifier: "UTC")
        return f.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}
