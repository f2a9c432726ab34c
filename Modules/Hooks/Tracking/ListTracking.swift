import ViewIdentity

/// Lists: a row selection reports `listItemClick` before the table's delegate runs.
enum ListTracking: InteractionHook {
    static func install(on system: HookSystem) throws(AspectError) -> [AspectToken] {
        let rows = try system.advise(.didSelectRow, .before) { system, call in
            let table = call.instance
            let indexPath = call.arguments
            system.report(
                .listSelection(
                    list: table, cell: table.cellForRow(at: indexPath), indexPath: indexPath,
                    delegateName: table.delegate.map { TypeName.name(String(reflecting: type(of: $0))) },
                    action: HookPoint.didSelectRow.method, timestamp: system.clock.wallMilliseconds()))
        }
        return [rows]
    }
}
