import CommandSupport
import Foundation
import KVCConfig

/// `autotrack-agent check`: tracking configuration against the code's inventory (docs/config.md §4),
/// or against the widget trees of a run of the app (`--tree-dir`, docs/gtk.md "The configuration
/// checked against the app").
public struct CheckCommand: Command {
    public static let name = "check"
    public static let abstract = "checks tracking configuration against the code's classes and actions"
    public static let discussion = """
        Loads every configuration file (JSON or XML plist: event tables, labelled screens and
        events, KVC rules), merges them, and compares them with an inventory of the code
        ({"Class": ["action:", ...]}, as `autotrack-agent inventory` writes; a directory is
        scanned for Swift sources instead), or with the app itself: the widget trees a run of a
        GTK app wrote (`autotrack-agent run --tree-dir DIR -- PROGRAM`, its windows shown; the
        trees in Examples/gtk-shop-trees are such a run of autotrack-gtk-shop), whose
        pages, windows and widgets' event-code targets are the classes and whose views the KVC
        rules must match. Give --inventory or --tree-dir, not both.

        Prints one line per problem on standard output, sorted by class and action, and exits 1:
          missing-class Class: configured at FILE: KEYPATH, but the inventory has no such class
          missing-action -[Class action:]: configured at FILE: KEYPATH, but Class in the inventory has no such action
          untracked-marker -[Class action_UA:]: the action carries the _UA marker, but no configuration tracks it
          empty-event-id -[Class action:]: event id at FILE: KEYPATH is empty
          non-string-event-id Class: page Enter event id at FILE: KEYPATH is a number (1), expected a string
          unknown-shape FILE: found ...; expected an event table, labelled screens and events, or KVC rules
          unmatched-rule RULE-ID: viewPath P configured at FILE: KEYPATH matches no view in the trees of DIR
        With no problem, prints one summary line starting "ok:" and exits 0.
        A configuration or inventory that cannot be loaded: each error (file, key path, expected,
        found) on standard error, exit 1. A usage error exits 2.
        """
    static let config = AgentOptions.config.required()
    static let inventory = Option.single("inventory", "FILE|DIR", help: "the inventory JSON, or a directory of Swift sources")
    static let treeDir = Option.single("tree-dir", "DIR", help: "instead of --inventory: the trees `run --tree-dir DIR` wrote")
    public static let optionGroups = [OptionGroup([config, inventory, treeDir])]
    public static let examples = """
        autotrack-agent inventory Modules/DemoShop > inventory.json
        autotrack-agent check --config Examples/shop-events.json --config Examples/shop-labels.plist \\
            --config Examples/shop-rules.json --inventory inventory.json
        autotrack-agent check --config Examples/gtk-shop-events.json --config Examples/gtk-shop-rules.json \\
            --tree-dir Examples/gtk-shop-trees
        """

    let configs: [String]
    /// What the configuration is compared with.
    enum Source {
        case inventory(String)
        case trees(String)
    }
    let source: Source

    public init(arguments: inout Arguments) throws(UsageError) {
        configs = try arguments.values(Self.config)
        let inventory = try arguments.value(Self.inventory)
        let trees = try arguments.value(Self.treeDir)
        switch (inventory, trees) {
        case (let i?, nil): source = .inventory(i)
        case (nil, let t?): source = .trees(t)
        case (nil, nil): throw UsageError("missing required option --inventory FILE|DIR or --tree-dir DIR")
        case (.some, .some): throw UsageError("give --inventory or --tree-dir, not both")
        }
        try arguments.finish()
    }

    public func run(io: any OutputStreams) -> ExitCode {
        let reading = TrackingPlan.read(files: configs)
        var failed = false
        for p in reading.problems where !ConfigCheck.findingCodes.contains(p.code) {
            io.printError("autotrack-agent check: \(p)")
            failed = true
        }
        var inv = Inventory()
        var trees: TreeInventory?
        let loaded: Result<Inventory, InventoryLoadFailure>
        switch source {
        case .inventory(let path): loaded = loadInventory(path, command: "autotrack-agent check")
        case .trees(let directory):
            loaded = TreeInventory.load(directory: directory).map { t in
                trees = t
                return t.inventory
            }
        }
        switch loaded {
        case .success(let i): inv = i
        case .failure(let message):
            io.printError(message.message)
            failed = true
        }
        if failed {
            io.printError("autotrack-agent check: fix the errors above, then run the check again.")
            return .failure
        }
        var findings = ConfigCheck.findings(reading, inventory: inv)
        if let trees, case .trees(let directory) = source {
            findings = (findings + trees.unmatchedRules(reading.plan, directory: directory)).sorted()
        }
        guard findings.isEmpty else {
            for f in findings { io.print(f.description) }
            io.printError("autotrack-agent check: \(findings.count) problem\(findings.count == 1 ? "" : "s") found")
            return .failure
        }
        let plan = reading.plan
        var classes = Set(plan.eventTable.keys)
        classes.formUnion(plan.screens.map(\.className))
        classes.formUnion(plan.events.map(\.className))
        var actions = Set(plan.eventTable.values.flatMap { c in c.controlEvents.keys.map { c.className + " " + $0 } })
        actions.formUnion(plan.events.map { $0.className + " " + $0.selector })
        let against =
            trees.map { "the \($0.files) trees of \(source.path) (\($0.paths.count) views, \(inv.classes.count) classes)" }
            ?? "the inventory of \(inv.classes.count) classes"
        io.print(
            "ok: \(classes.count) classes, \(actions.count) actions and \(plan.rules.count) rules in \(configs.count) files "
                + "match \(against); every \(ConfigCheck.marker) action is tracked")
        return .success
    }
}

extension CheckCommand.Source {
    var path: String {
        switch self {
        case .inventory(let p), .trees(let p): return p
        }
    }
}
