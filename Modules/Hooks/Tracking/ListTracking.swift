import Interactions
import ViewIdentity

/// Lists: a table row's or a collection item's selection reports `listItemClick` before the delegate runs.
enum ListTracking: InteractionHook {
    static func install(on system: HookSystem) throws(AspectError) -> [AspectToken] {
        let rows = try system.advise(.didSelectRow, .before) { system, call in
            let table = call.instance
            report(table, table.cellForRow(at: call.arguments), call.arguments, table.delegate, HookPoint.didSelectRow.method, system)
        }
        let items = try system.advise(.didSelectItem, .before) { system, call in
            let grid = call.instance
            report(grid, grid.cellForItem(at: call.arguments), call.arguments, grid.delegate, HookPoint.didSelectItem.method, system)
        }
        return [rows, items]
    }

    private static func report(
        _ list: UIView, _ cell: UIView?, _ indexPath: CellIndexPath, _ delegate: AnyObject?, _ action: String, _ system: HookSystem
    ) {
        system.report(
            .listSelection(
                list: list, cell: cell, indexPath: indexPath,
                delegateName: delegate.map { TypeName.name(String(reflecting: type(of: $0))) }, action: action,
                timestamp: system.clock.wallMilliseconds()))
    }
}
