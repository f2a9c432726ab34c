import ATLPClient
import ATLPWire
public import CommandSupport
import Definitions
import EventModel
import EventStore
import Foundation
import KVCConfig
import SystemCalls
import ViewIdentity

/// `rules`: publishes rule files to a running collector, or lists what a database holds.
public struct RulesCommand: Command {
    public static let name = "rules"
    public static let abstract = "publishes KVC rule files to a collector, or lists the published rules"
    public static let discussion = """
        publish  loads the files (JSON or XML plist, docs/config.md), merges them, checks every rule,
                 and sends the rules in one PUBLISH over ATLP/1 with a HELLO carrying the admin
                 token. For each app key among the rules, the collector replaces that app's rules
                 with these (and the sampling rate, default 1). Prints 'stored N rules at
                 HOST:PORT' ('1 rule'). A collector that refuses the connection (one just
                 started, not listening yet) is retried for up to 5 s, at growing intervals;
                 with several --to, the next one is tried when one cannot be reached (collectors
                 on one PostgreSQL database share their rules, so one publish reaches them all).
        list     prints a table of the rules published in a database, with each app's
                 sampling rate; the database is only read.
        """
    static let to = CollectorOptions.to.described("for publish: the collector to publish to; more are tried in order when one cannot be reached")
    static let token = Option.single(
        "token", "TOKEN", help: "for publish: the collector's admin token",
        missing: "rules publish needs --token TOKEN (the collector's --admin-token)", environment: "AUTOTRACK_ADMIN_TOKEN")
    static let timeout = Option.single("timeout", "SECS", help: "for publish: give up on a silent collector after this long", default: "10")
    static let sampleRate = Option.single(
        "sample-rate", "R",
        help: "for publish: the share of devices (0 to 1) whose events the apps send (default 1: all); agents pick devices by a "
            + "hash of their id (docs/wire.md)")
    static let db = Option.single("db", "FILE|URI", help: "for list: the database, or a postgresql:// URI", default: "./autotrack.sqlite")
    static let app = Option.single("app", "KEY", help: "for list: only this app key's rules")
    public static let optionGroups = [OptionGroup([token, timeout, sampleRate, db, app]), CollectorOptions.group(to: to)]
    public static let usage = [
        Usage("publish FILE...", options: [to.required(), token.required(), timeout, sampleRate, CollectorOptions.tls, CollectorOptions.authority]),
        Usage("list", options: [db, app]),
    ]
    public static let examples = """
        autotrack-collector serve --listen 127.0.0.1:7070 --db shop.sqlite --admin-token "$ADMIN" &
        autotrack-collector rules publish Examples/shop-rules.json --to 127.0.0.1:7070 --token "$ADMIN"
        autotrack-collector rules list --db shop.sqlite
        """

    /// What to do.
    public enum Action: Sendable {
        case publish(files: [String], to: CollectorOptions, token: String, timeout: Double, sampleRate: Double?)
        case list(database: String, appKey: String?)
    }

    public var action: Action

    public init(arguments: inout Arguments) throws(UsageError) {
        let to = try CollectorOptions(arguments: &arguments)
        let tokenGiven = arguments.contains(Self.token)
        let token = try arguments.value(Self.token)
        let timeoutGiven = arguments.contains(Self.timeout)
        let timeout = try arguments.double(defaulted: Self.timeout, in: 0.1...3600)
        let sampleRate = try arguments.double(Self.sampleRate, in: StoredRuleSet.sampleRates)
        let dbGiven = arguments.contains(Self.db)
        let db = try arguments.value(defaulted: Self.db)
        let app = try arguments.value(Self.app)
        var rest = try arguments.positionals()
        guard !rest.isEmpty else { throw UsageError("say what to do: 'rules publish FILE...' or 'rules list'") }
        let verb = rest.removeFirst()
        switch verb {
        case "publish":
            if dbGiven || app != nil { throw UsageError("--db and --app belong to 'rules list'; publish sends to --to") }
            guard !rest.isEmpty else { throw UsageError("rules publish needs at least one rule file") }
            guard !to.addresses.isEmpty else { throw UsageError("rules publish needs --to HOST:PORT (the collector)") }
            guard let token, !token.isEmpty else { throw Self.token.missingError }
            action = .publish(files: rest, to: to, token: token, timeout: timeout, sampleRate: sampleRate)
        case "list":
            if !to.addresses.isEmpty || tokenGiven || timeoutGiven || sampleRate != nil {
                throw UsageError("--to, --token, --timeout, --sample-rate and --tls belong to 'rules publish'")
            }
            if let extra = rest.first { throw UsageError("rules list takes no file ('\(extra)'); use --db FILE") }
            action = .list(database: db, appKey: app)
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
        _ files: [String], to collectors: CollectorOptions, token: String, timeout: Double, sampleRate: Double?, io: any OutputStreams
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
        guard let connections = collectors.connections(command: "autotrack-collector rules publish", io: io) else {
            return .failure
        }
        let hello = Hello(appKey: plan.rules[0].appKey, agent: "autotrack-collector rules publish", token: token)
        var unreachable: [String] = []
        let addresses = connections.addresses
        for address in addresses {
            do throws(TransportError) {
                // A refused connection is retried (a collector just starting) only on the last
                // collector; before it, the next one is tried at once.
                let connection = try ATLPConnection.connect(
                    to: address, hello: hello, timeout: .milliseconds(Int64((timeout * 1000).rounded())),
                    retryFor: address == addresses.last ? ATLPConnection.refusedRetryWindow : .zero, security: connections.security)
                defer { connection.close() }
                let stored = try connection.publish(rules: plan.rules.map(\.json), sampleRate: sampleRate)
                io.print("stored \(stored) \(stored == 1 ? "rule" : "rules") at \(address)")
                return .success
            } catch {
                if error.remote == nil, error.code == .system || error.code == .timedOut, address != addresses.last {
                    unreachable.append("\(address): \(error)")  // the next collector may answer
                    continue
                }
                var message = "autotrack-collector rules publish: \(error)"
                for line in unreachable { message += "\n  (not reached: \(line))" }
                switch error.remote?.code {
                case .forbidden?, .unauthorized?: message += "\nGive the collector's --admin-token with --token."
                default: break
                }
                if error.code == .system || error.code == .timedOut {
                    message += "\nIs 'autotrack-collector serve' running at \(collectors.addressList)?"
                }
                if error.code == .security {
                    message += "\nDoes the collector serve TLS (serve --tls-cert/--tls-key), and does --tls-ca name its authority?"
                }
                io.printError(message)
                return .failure
            }
        }
        return .failure  // not reached: the last address either returns or fails above
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
            "app", "id", "app version", "view event", "view path", "key path", "key name", "content", "sample rate", "published", "name",
        ]
        var rows: [[String]] = []
        for set in sets {
            for stored in set.rules {
                guard let r = stored.rule else {
                    rows.append([set.appKey, stored.id, "(does not parse: \(stored.json))", "", "", "", "", "", "", "", ""])
                    continue
                }
                rows.append([
                    r.appKey, r.id, r.appVersion.text, r.viewEvent.rawValue, r.viewPath.text, r.keyPath?.text ?? "-", r.keyName ?? "-",
                    r.content ?? "-", JSONValue.double(set.sampleRate).jsonText, Self.timestamp(stored.publishedAt), r.name ?? "-",
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
