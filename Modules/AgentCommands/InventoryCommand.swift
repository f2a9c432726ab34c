import CommandSupport
import KVCConfig
import SourceInventory

/// `autotrack-agent inventory`: the classes and action methods of Swift sources, for `check`.
public struct InventoryCommand: Command {
    public static let name = "inventory"
    public static let abstract = "lists, per class, the action methods found in Swift sources (for check)"
    public static let discussion = """
        Reads every .swift file under each PATH (a directory, searched recursively, skipping
        hidden folders such as .build; or a single file) and prints the inventory as JSON:
        one class per line, classes and actions sorted, ending in a newline:
          {
            "HomeViewController": ["onFavBtnPressed:", "onShareBtnPressed_UA:", "viewDidLoad"]
          }
        Actions are methods marked @objc, @IBAction or @IBSegueAction, overrides (such as
        viewDidLoad), methods of @objcMembers classes, and methods whose first parameter is named sender or typed as a control, named
        as Objective-C selectors (f(_ s: UIButton) -> "f:", f(sender: X) -> "fWithSender:",
        tap(_ a: X, forEvent e: Y) -> "tap:forEvent:"). Best effort: a light tokenizer, not a
        compiler; see docs/config.md.

        Exits 1 (message on standard error) when a PATH cannot be read.
        """
    public static let optionGroups: [OptionGroup] = []
    public static let positionals = "PATH [PATH ...]"
    public static let examples = """
        autotrack-agent inventory Modules/DemoShop > inventory.json
        """

    let paths: [String]

    public init(arguments: inout Arguments) throws(UsageError) {
        paths = try arguments.positionals()
        guard !paths.isEmpty else { throw UsageError("missing PATH: give a directory of Swift sources (or a .swift file)") }
    }

    public func run(io: any OutputStreams) -> ExitCode {
        var inventory = Inventory()
        for path in paths {
            do throws(InventoryError) {
                let part = try InventoryBuilder.inventory(directory: path)
                for (c, actions) in part.classes { inventory.add(className: c, actions: actions) }
            } catch {
                io.printError("autotrack-agent inventory: \(error)")
                return .failure
            }
        }
        io.out(inventory.jsonText)
        return .success
    }
}
