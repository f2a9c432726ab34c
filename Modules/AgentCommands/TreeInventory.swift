import EventModel
import Foundation
import KVCConfig
import ViewIdentity

/// What the widget trees written by a run (`autotrack-agent run --tree-dir DIR`, docs/gtk.md
/// "Trees") say an app has, for the check (docs/config.md "The check"): its pages and windows as
/// classes, each by its name with its alias (`GtkBox(page1)`) and by its type (`GtkBox`); per
/// event-code Target (a widget's id, its type, an action group `win`), the Actions its widgets
/// send (each node's `target` and `actions`); and every view's path, for the KVC rules.
struct TreeInventory {
    var inventory = Inventory()
    var paths: [ViewPath] = []
    /// The tree files read.
    var files = 0

    /// Reads every `*.json` of `directory`. A file that is not a tree is an error naming it.
    static func load(directory: String) -> Result<TreeInventory, InventoryLoadFailure> {
        let command = "autotrack-agent check"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            return .failure(InventoryLoadFailure(message: "\(command): cannot read the tree directory \(directory)"))
        }
        var out = TreeInventory()
        for name in names.sorted() where name.hasSuffix(".json") && !name.hasPrefix(".") {
            let file = directory + "/" + name
            guard let data = FileManager.default.contents(atPath: file) else {
                return .failure(InventoryLoadFailure(message: "\(command): cannot read \(file)"))
            }
            let root: JSONValue
            do throws(JSONParseError) {
                root = try JSONValue.parse(data)
            } catch {
                return .failure(InventoryLoadFailure(message: "\(command): \(file) is not JSON: \(error)"))
            }
            guard root.objectValue != nil, root["type"]?.stringValue != nil else {
                return .failure(
                    InventoryLoadFailure(
                        message: "\(command): \(file) is not a widget tree (a JSON object with a \"type\"); "
                            + "give the directory `run --tree-dir` wrote"))
            }
            out.add(root)
            out.files += 1
        }
        guard out.files > 0 else {
            return .failure(
                InventoryLoadFailure(
                    message: "\(command): no tree (*.json) in \(directory); run the app with `autotrack-agent run --tree-dir \(directory)` "
                        + "and visit its pages first"))
        }
        return .success(out)
    }

    /// Adds a tree's nodes, depth first; bounded by the tree's size.
    private mutating func add(_ root: JSONValue) {
        var pending = [root]
        while let node = pending.popLast() {
            let type = node["type"]?.stringValue ?? ""
            let role = node["role"]?.stringValue
            if role == "controller" || role == "window" {
                inventory.add(className: type)
                if let alias = node["alias"]?.stringValue, !alias.isEmpty { inventory.add(className: "\(type)(\(alias))") }
            }
            if let target = node["target"]?.stringValue {
                inventory.add(className: target, actions: (node["actions"]?.arrayValue ?? []).compactMap(\.stringValue))
            }
            if let text = node["path"]?.stringValue, let path = try? ViewPath(canonical: text) { paths.append(path) }
            pending.append(contentsOf: (node["children"]?.arrayValue ?? []).reversed())
        }
    }

    /// One `unmatched-rule` finding per KVC rule whose view path matches no view of the trees.
    func unmatchedRules(_ plan: TrackingPlan, directory: String) -> [CheckFinding] {
        plan.rules.filter { rule in !paths.contains { rule.viewPath.matches($0) } }.map { rule in
            CheckFinding(
                kind: .unmatchedRule, className: rule.id, action: nil, location: rule.location,
                detail: "viewPath \(rule.viewPath) configured at \(rule.location) matches no view in the trees of \(directory)")
        }
    }
}
