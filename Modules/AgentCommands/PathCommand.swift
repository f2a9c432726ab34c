import CommandSupport
import EventModel
import Foundation
import ViewIdentity

/// `autotrack-agent path`: the canonical form, XPath form and viewId of the identified nodes of a view tree.
public struct PathCommand: Command {
    public static let name = "path"
    public static let abstract = "prints the viewPath and viewId of every node of a view tree that has an id"
    public static let discussion = """
        Reads a view tree (JSON, see docs/viewpath.md §1) and prints, for every node that has an
        "id", in document order, one compact JSON object per line:
          {"id":…,"canonical":…,"xpath":…,"viewId":…}

        EXIT STATUS: 0 printed; 1 unreadable file, bad tree (the error names the node) or
        unknown id; 2 usage error.
        """
    static let tree = Option.single("tree", "FILE", help: "the view tree JSON file", required: true)
    static let id = Option.single("id", "ID", help: "print only the node whose id is ID")
    public static let optionGroups = [OptionGroup([tree, id])]
    public static let examples = """
        autotrack-agent path --tree Examples/home-tree.json --id fav
        {"id":"fav","canonical":"HomeViewController-UIView-UITableView-ProductCell-UITableViewCellContentView-UIButton&0-0-0-0:2-0-0","xpath":"HomeViewController[0]/UIView[0]/UITableView[0]/ProductCell[0:2]/UITableViewCellContentView[0]/UIButton[0]","viewId":"8f5099e51bf92eb87b2ba62b98ccf912"}
        """

    let treeFile: String
    let id: String?

    public init(arguments: inout Arguments) throws(UsageError) {
        treeFile = try arguments.required(Self.tree)
        id = try arguments.value(Self.id)
        try arguments.finish()
    }

    public func run(io: any OutputStreams) -> ExitCode {
        let prefix = "autotrack-agent path"
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: treeFile, isDirectory: &isDirectory), isDirectory.boolValue {
            io.printError("\(prefix): cannot read the tree file '\(treeFile)': it is a directory; give a JSON file")
            return .failure
        }
        let bytes: Data
        do {
            bytes = try Data(contentsOf: URL(fileURLWithPath: treeFile))
        } catch {
            io.printError("\(prefix): cannot read the tree file '\(treeFile)'; check it exists and is readable")
            return .failure
        }
        let tree: ViewTree
        do {
            tree = try ViewTree(json: bytes)
        } catch {
            io.printError("\(prefix): bad view tree in '\(treeFile)': \(error.description). Fix that node and retry.")
            return .failure
        }
        if let id {
            guard let node = tree.node(id: id) else {
                let known = tree.identified.prefix(10).compactMap(\.id).map { JSONValue.string($0).jsonText }
                let list = known.isEmpty ? "no node has an id" : "ids are \(known.joined(separator: ", "))"
                    + (tree.identified.count > 10 ? ", …" : "")
                io.printError(
                    "\(prefix): no node has the id \(JSONValue.string(id).jsonText) in '\(treeFile)' (\(list))")
                return .failure
            }
            io.print(PathCommand.line(for: node))
            return .success
        }
        if tree.identified.isEmpty {
            io.printError("\(prefix): note: no node in '\(treeFile)' has an \"id\", so there is nothing to print")
        }
        var out = ""
        for node in tree.identified {
            out += PathCommand.line(for: node)
            out += "\n"
            if out.utf8.count >= 1 << 16 {
                io.out(out)
                out = ""
            }
        }
        if !out.isEmpty { io.out(out) }
        return .success
    }

    /// `{"id":…,"canonical":…,"xpath":…,"viewId":…}` for one node.
    static func line(for node: TreeNode) -> String {
        let path = node.viewPath
        let canonical = path.canonical
        let object = JSONObject([
            ("id", .string(node.id ?? "")),
            ("canonical", .string(canonical)),
            ("xpath", .string(path.xpath)),
            ("viewId", .string(ViewID(canonical: canonical).hex)),
        ])
        return JSONValue.object(object).jsonText
    }
}
