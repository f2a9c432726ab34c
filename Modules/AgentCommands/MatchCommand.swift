import CommandSupport
import EventModel
import Foundation
import KVCConfig
import Matching
import ViewIdentity

/// `autotrack-agent match`: which KVC rules fire for one view of a tree, and what they read.
public struct MatchCommand: Command {
    public static let name = "match"
    public static let abstract = "shows which KVC rules match a view of a view tree, and the values they read"
    public static let discussion = """
        Loads and merges the configuration files (JSON or XML plist), reads the view tree (JSON,
        docs/viewpath.md §1), takes the node whose "id" is ID, and matches it against every KVC rule for
        VIEW_EVENT: the node's path against each rule's viewPath pattern, its "title" against the
        rule's content, its "props" feed each matched rule's keyPath.

        Prints one JSON object on one line, matches in rule load order:
          {"canonical":"...","viewId":"...","matches":[{"rule":"ID","keyName":"NAME","value":VALUE}],
           "errors":[{"rule":"ID","keyPath":"PATH","missingKey":"KEY"}]}
        "errors" lists matched rules whose key path named nothing (the kvc_error records).

        Without --app-key, rules of every app key match; without --app-version, every version range
        holds. Give them to see exactly what one app at one version would report.

        A configuration, tree or id that cannot be used: the error on standard error, exit 1. A
        usage error (a missing option, an unknown view event, a malformed --app-version) exits 2.
        """
    static let config = AgentOptions.config.required()
    static let tree = Option.single("tree", "FILE", help: "a view tree JSON file", required: true)
    static let id = Option.single("id", "ID", help: "the \"id\" of the node that the event happened on", required: true)
    static let event = Option.single(
        "event", "VIEW_EVENT", help: ViewEvent.allCases.map(\.rawValue).joined(separator: ", "), required: true)
    public static let optionGroups = [OptionGroup([config, tree, id, event, AgentOptions.appKey, AgentOptions.appVersion])]
    public static let examples = """
        autotrack-agent match --config Examples/shop-rules.json --tree Examples/home-tree.json \\
            --id fav --event ButtonClick --app-key shop --app-version 1.4.0
        """

    let configs: [String]
    let tree: String
    let id: String
    let viewEvent: ViewEvent
    let appKey: String?
    let appVersion: AppVersion?

    public init(arguments: inout Arguments) throws(UsageError) {
        configs = try arguments.values(Self.config)
        tree = try arguments.required(Self.tree)
        id = try arguments.required(Self.id)
        let event = try arguments.required(Self.event)
        guard let viewEvent = ViewEvent(rawValue: event) else {
            throw UsageError("unknown view event '\(event)' for --event; use one of \(ViewEvent.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.viewEvent = viewEvent
        appKey = try arguments.value(AgentOptions.appKey)
        appVersion = try arguments.appVersion(AgentOptions.appVersion)
        try arguments.finish()
    }

    public func run(io: any OutputStreams) -> ExitCode {
        func fail(_ message: String) -> ExitCode {
            io.printError("autotrack-agent match: \(message)")
            return .failure
        }
        let plan: TrackingPlan
        do throws(ConfigError) {
            plan = try TrackingPlan.load(files: configs)
        } catch {
            for p in error.problems { io.printError("autotrack-agent match: \(p)") }
            return fail("fix the configuration errors above, then run again")
        }
        guard let data = FileManager.default.contents(atPath: tree) else {
            return fail("cannot read the view tree \(tree) (no such file, a directory, or no permission)")
        }
        let viewTree: ViewTree
        do throws(ViewTreeError) {
            viewTree = try ViewTree(json: [UInt8](data))
        } catch {
            return fail("view tree \(tree): \(error)")
        }
        guard let node = viewTree.node(id: id) else {
            let known = viewTree.identified.compactMap(\.id)
            let list = known.isEmpty ? "the tree has no node with an id" : "ids in the tree: \(known.joined(separator: ", "))"
            return fail("no node with id \"\(id)\" in \(tree); \(list)")
        }
        let matcher = PlanMatcher(plan: plan)
        let query = PlanMatcher.query(for: node, viewEvent: viewEvent, appKey: appKey, appVersion: appVersion)
        let results = matcher.match(query, reader: ReflectionReader(root: node))
        io.print(Self.output(query: query, results: results).jsonText)
        return .success
    }

    /// The one-line answer, keys in the documented order.
    static func output(query: MatchQuery, results: [RuleMatch]) -> JSONValue {
        var matches: [JSONValue] = []
        var errors: [JSONValue] = []
        for r in results {
            switch r.result {
            case .success(let value):
                // A rule that reads nothing (no keyName) names the event only.
                var match = JSONObject([("rule", .string(r.rule.id))])
                if let keyName = r.rule.keyName {
                    match["keyName"] = .string(keyName)
                    match["value"] = value
                }
                matches.append(.object(match))
            case .failure(let e):
                errors.append(
                    .object(
                        JSONObject([
                            ("rule", .string(e.ruleID)), ("keyPath", .string(e.keyPath)), ("missingKey", .string(e.missingKey)),
                        ])))
            }
        }
        let canonical = query.path.canonical
        return .object(
            JSONObject([
                ("canonical", .string(canonical)), ("viewId", .string(ViewID(canonical: canonical).hex)),
                ("matches", .array(matches)), ("errors", .array(errors)),
            ]))
    }
}
