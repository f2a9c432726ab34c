import CommandSupport
import Foundation
import KVCConfig

/// `autotrack-agent check`: tracking configuration against the code's inventory (docs/config.md §4).
public struct CheckCommand: Command {
    public static let name = "check"
    public static let abstract = "checks tracking configuration against the code's classes and actions"
    public static let help = """
        USAGE: autotrack-agent check --config FILE [--config FILE ...] --inventory FILE|DIR

        Loads every configuration file (JSON or XML plist: event tables, labelled screens and
        events, KVC rules), merges them, and compares them with an inventory of the code
        ({"Class": ["action:", ...]}, as `autotrack-agent inventory` writes; a directory is
        scanned for Swift sources instead).

        Prints one line per problem on standard output, sorted by class and action, and exits 1:
          missing-class Class: configured at FILE: KEYPATH, but the inventory has no such class
          missing-action -[Class action:]: configured at FILE: KEYPATH, but Class in the inventory has no such action
          untracked-marker -[Class action_UA:]: the action carries the _UA marker, but no configuration tracks it
          empty-event-id -[Class action:]: event id at FILE: KEYPATH is empty
          non-string-event-id Class: page Enter event id at FILE: KEYPATH is a number (1), expected a string
          unknown-shape FILE: found ...; expected an event table, labelled screens and events, or KVC rules
        With no problem, prints one summary line starting "ok:" and exits 0.
        A configuration or inventory that cannot be loaded: each error (file, key path, expected,
        found) on standard error, exit 1. A usage error exits 2.

        OPTIONS:
          --config FILE      a configuration document; repeat for several (they merge)
          --inventory PATH   the inventory JSON, or a directory of Swift sources
          -h, --help         show this help

        EXAMPLE:
          autotrack-agent inventory Modules/DemoShop > inventory.json
          autotrack-agent check --config Examples/shop-events.json --config Examples/shop-labels.plist \\
              --config Examples/shop-rules.json --inventory inventory.json

        """

    let configs: [String]
    let inventory: String

    public init(arguments: inout Arguments) throws(UsageError) {
        configs = try arguments.options("config")
        guard !configs.isEmpty else { throw UsageError("missing required option --config FILE (give it once per file)") }
        inventory = try arguments.requiredOption("inventory")
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
        switch loadInventory(inventory, command: "autotrack-agent check") {
        case .success(let i): inv = i
        case .failure(let message):
            io.printError(message.message)
            failed = true
        }
        if failed {
            io.printError("autotrack-agent check: fix the errors above, then run the check again.")
            return .failure
        }
        let findings = ConfigCheck.findings(reading, inventory: inv)
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
        io.print(
            "ok: \(classes.count) classes, \(actions.count) actions and \(plan.rules.count) rules in \(configs.count) files "
                + "match the inventory of \(inv.classes.count) classes; every \(ConfigCheck.marker) action is tracked")
        return .success
    }
}
