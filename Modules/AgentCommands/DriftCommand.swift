import CommandSupport
import EventModel
import Foundation
import KVCConfig
import PathDrift

/// `autotrack-agent drift`: the KVC rules a new build breaks, and where their views went.
public struct DriftCommand: Command {
    public static let name = "drift"
    public static let abstract = "finds the KVC rules a new build's view trees break, and suggests the new viewPath"
    public static let discussion = """
        Reads the configuration (JSON or XML plist) and the view trees of the new build (JSON, one
        page per file, as `autotrack-agent demo --tree-dir DIR` writes them; a PATH is a tree file or
        a directory of them). For every KVC rule in range (of --app-key; whose appVersion range holds
        for --app-version):
          ok      its viewPath matches a node of the new trees whose role fits its viewEvent
                  (PageEnter/PageLeave: controller; ListItemClick: cell; ViewTap, Impression: view or cell;
                  ButtonClick, ValueChanged, Scroll: view)
          broken  nothing matches; or, with --baseline, the pattern now matches only other views
                  than the one it matched in the old build, which is clearly found elsewhere
        For a broken rule it scores every node of the new trees that could take the event: path
        similarity (elements added, removed, renamed), type name, the rule's content and keyPath,
        and with --baseline (the old build's trees) the old node's id, title, props, neighbours and
        position. It lists the best candidates and suggests the best one when it scores 0.65 or
        more, is 0.10 ahead of the second, and (when the view had an id, a title or a content)
        agrees on one of them; a view that is gone gets no suggestion. Wildcard indexes stay
        wildcards. docs/drift.md explains the scoring.

        With --inventory (as `check` takes it), classes and actions of the event table and labels
        that the code lacks are listed too, with the renamed class or action where one is close.

        Output: --format table (default) one line per rule, or json:
          {"rules":[{"rule":ID,"status":"ok"|"broken","matches":N,"suggestion":{"viewPath":P,
           "score":S,"signals":[...]}|null,"candidates":[{"viewPath":P,"score":S}]}],
           "actions":[...]}   ("actions" only with --inventory)
        --fix OUT.json writes every KVC rule, as its file wrote it, with the suggested viewPaths
        applied and nothing else changed.

        EXIT STATUS: 0 no rule broken (and nothing missing from the inventory); 1 something
        broken, or a file that cannot be read (the error says which); 2 usage error.
        """
    static let config = AgentOptions.config.required()
    static let trees = Option.repeatable(
        "trees", "PATH", help: "the new build's trees: a file or a directory", required: true,
        missing: "missing required option --trees PATH (the new build's tree files or directories)")
    static let baseline = Option.repeatable("baseline", "PATH", help: "the old build's trees, the same way")
    static let inventory = Option.single("inventory", "FILE|DIR", help: "an inventory JSON, or a directory of Swift sources")
    static let format = Option.single("format", "FORMAT", help: "table or json", default: "table")
    static let fix = Option.single("fix", "OUT.json", help: "write the rules with the suggested viewPaths to OUT.json")
    public static let optionGroups = [
        OptionGroup([config, trees, baseline, AgentOptions.appKey, AgentOptions.appVersion, inventory, format, fix])
    ]
    public static let examples = """
        autotrack-agent drift --config Examples/shop-rules.json --trees Examples/drift/new \\
            --baseline Examples/drift/old --app-key shop --app-version 1.2.0 --fix fixed-rules.json
        """

    enum Format: String, CaseIterable {
        case table, json
    }

    let configs: [String]
    let trees: [String]
    let baseline: [String]
    let appKey: String?
    let appVersion: AppVersion?
    let inventory: String?
    let format: Format
    let fix: String?

    public init(arguments: inout Arguments) throws(UsageError) {
        configs = try arguments.values(Self.config)
        trees = try arguments.values(Self.trees)
        baseline = try arguments.values(Self.baseline)
        appKey = try arguments.value(AgentOptions.appKey)
        appVersion = try arguments.appVersion(AgentOptions.appVersion)
        inventory = try arguments.value(Self.inventory)
        let formatText = try arguments.value(defaulted: Self.format)
        guard let f = Format(rawValue: formatText) else {
            throw UsageError("option --format takes \(Format.allCases.map(\.rawValue).joined(separator: " or ")), not '\(formatText)'")
        }
        format = f
        fix = try arguments.value(Self.fix)
        try arguments.finish()
    }

    public func run(io: any OutputStreams) -> ExitCode {
        let prefix = "autotrack-agent drift"
        guard let plan = loadPlan(files: configs, io: io, command: prefix) else { return .failure }
        let newTrees: [TreeFile]
        let oldTrees: [TreeFile]
        do throws(DriftError) {
            newTrees = try TreeFile.load(trees)
            oldTrees = try TreeFile.load(baseline)
        } catch {
            io.printError("\(prefix): \(error)")
            return .failure
        }
        var actions: [ActionDrift]?
        if let inventory {
            switch loadInventory(inventory, command: prefix) {
            case .success(let inv): actions = ActionRenames.check(plan, inventory: inv)
            case .failure(let f):
                io.printError(f.message)
                io.printError("\(prefix): fix the inventory above, or leave --inventory out")
                return .failure
            }
        }
        let report = DriftReport(
            rules: PathDrift(trees: newTrees, baseline: oldTrees).check(plan, appKey: appKey, appVersion: appVersion),
            actions: actions)

        switch format {
        case .table: io.out(report.table)
        case .json: io.print(report.json.jsonText)
        }
        let broken = report.rules.filter { $0.status == .broken }
        let suggested = report.rules.compactMap { r in r.suggestion.map { (r.rule.id, $0.viewPath) } }
        var summary = "\(prefix): \(report.rules.count) rule\(report.rules.count == 1 ? "" : "s") in range, "
            + "\(broken.count) broken, \(suggested.count) with a suggested viewPath"
        if let actions { summary += "; \(actions.count) class or action name\(actions.count == 1 ? "" : "s") missing from the inventory" }
        if report.rules.isEmpty {
            summary += " (no rule has app key and version range that fit; check --app-key and --app-version)"
        }
        io.printError(summary)

        if let fix {
            do {
                let text = try RuleFix.document(plan, suggestions: Dictionary(suggested, uniquingKeysWith: { a, _ in a }))
                try Data(text.utf8).write(to: URL(fileURLWithPath: fix), options: .atomic)
                io.printError("\(prefix): wrote \(plan.rules.count) rules to \(fix), \(suggested.count) viewPath\(suggested.count == 1 ? "" : "s") changed")
            } catch {
                io.printError("\(prefix): cannot write --fix \(fix): \(error). Check the folder exists and is writable.")
                return .failure
            }
        }
        return report.hasBreakage ? .failure : .success
    }
}
