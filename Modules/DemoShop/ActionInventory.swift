public import Hooks
import ViewIdentity

/// The actions each class of a running UI implements, by class name: the inventory that a
/// configuration check (docs/config.md §4) compares a configuration against.
public enum ActionInventory {
    /// Class name (module prefix stripped) → action names, sorted, from every control and
    /// gesture recogniser under `root`, plus the table delegate's selection and scroll callbacks.
    public static func collect(from root: UIView) -> [String: [String]] {
        var found: [String: Set<String>] = [:]
        func add(_ typeName: String, _ action: String) {
            found[TypeName.stripModulePrefix(typeName), default: []].insert(action)
        }
        func visit(_ view: UIView) {
            if let control = view as? UIControl {
                for a in control.registeredActions { add(a.targetTypeName, a.action.name) }
            }
            for g in view.gestureRecognizers {
                for a in g.registeredActions { add(a.targetTypeName, a.action.name) }
            }
            if let table = view as? UITableView, let delegate = table.delegate {
                let name = String(reflecting: type(of: delegate))
                add(name, HookPoint.didSelectRow.method)
                add(name, HookPoint.didEndDragging.method)
            }
            for s in view.subviews { visit(s) }
        }
        visit(root)
        return found.mapValues { $0.sorted() }
    }

    /// The demo shop's inventory: home, and a detail page (built in a registry of its own, unhooked).
    public static func demoShop() -> [String: [String]] {
        AspectRegistry.$current.withValue(AspectRegistry(diagnostics: { _ in })) {
            let app = DemoShopApp()
            let detail = DetailViewController(product: Product.catalogue[0])
            var all = collect(from: app.home.view)
            for (k, v) in collect(from: detail.view) { all[k] = Array(Set(all[k, default: []] + v)).sorted() }
            return all
        }
    }
}
