public import ViewIdentity

/// How each kind of hooked call becomes an `Interaction`: the one mapping that the hooks and the
/// recording player (Modules/Tracker) share, so a recorded tap and a live tap give the same event.
/// Every builder takes `ViewNode`s, so any toolkit (or a JSON view tree) can use it.
extension Interaction {
    /// A control or gesture recogniser sent `action` to a target: `click`, `valueChanged` or `gesture`.
    ///
    /// - Parameters:
    ///   - node: the control, or the gesture's view: the node the event is about.
    ///   - targetName: the target's type name as rule 3 names it (`TypeName.name`).
    ///   - action: the action name; nil (a recording that names none) gives no event code.
    ///   - pageOf: the page of the node's controller; by default its path name (a toolkit whose
    ///     controllers may be no page, as containers, gives the page they show).
    public static func targetAction(
        _ kind: Kind, on node: any ViewNode, targetName: String, action: String?, controlEvents: ControlEvents? = nil,
        value: ControlValue? = nil, gesture: String? = nil, tapCount: Int? = nil, timestamp: Int64,
        pageOf: (any ViewNode) -> String? = { $0.pathName }
    ) -> Interaction {
        let place = ViewPlacement(of: node)
        return Interaction(
            kind: kind, node: node,
            eventCode: action.map { EventCode(controller: place.codeController, target: targetName, action: $0) },
            controlEvents: controlEvents, title: node.title, value: value, indexPath: place.cell?.cellIndexPath,
            page: place.controller.flatMap(pageOf), gesture: gesture, tapCount: tapCount, timestamp: timestamp)
    }

    /// The user selected a row or item of a list: `listItemClick` on the cell (the list when the
    /// cell is not visible), coded `Controller#Delegate#action` (the list itself without a delegate).
    public static func listSelection(
        list: any ViewNode, cell: (any ViewNode)?, indexPath: CellIndexPath, delegateName: String?, action: String,
        timestamp: Int64
    ) -> Interaction {
        let place = ViewPlacement(of: list)
        return Interaction(
            kind: .listItemClick, node: cell ?? list,
            eventCode: EventCode(controller: place.codeController, target: delegateName ?? list.pathName, action: action),
            title: cell?.title, indexPath: indexPath, page: place.page, timestamp: timestamp)
    }

    /// A drag ended: `scroll` with the offset as `value`, coded like a list selection.
    public static func scroll(
        _ view: any ViewNode, delegateName: String?, action: String, value: ControlValue?, timestamp: Int64
    ) -> Interaction {
        let place = ViewPlacement(of: view)
        return Interaction(
            kind: .scroll, node: view,
            eventCode: EventCode(controller: place.codeController, target: delegateName ?? view.pathName, action: action),
            value: value, page: place.page, timestamp: timestamp)
    }

    /// A page appeared (`pageEnter`) or disappeared (`pageLeave`), with its entry count and dwell time.
    public static func page(
        _ kind: Kind, _ controller: any ViewNode, count: Int?, duration: Int64? = nil, timestamp: Int64
    ) -> Interaction {
        Interaction(
            kind: kind, node: controller, title: controller.title, duration: duration, page: controller.pathName,
            pageCount: count, timestamp: timestamp)
    }
}

/// Page entries and dwell times, by page: what page events count and time.
///
/// Times are nanoseconds of a monotonic clock; a page that was not seen entering leaves with no duration.
public struct PageVisits: Sendable {
    /// Entries per page name (with alias).
    public private(set) var counts: [String: Int] = [:]
    private var starts: [ObjectIdentifier: UInt64] = [:]

    public init() {}

    /// Records an entry of `controller` at `now`; returns the page's entry count.
    public mutating func enter(_ controller: any ViewNode, now: UInt64) -> Int {
        starts[ObjectIdentifier(controller)] = now
        counts[controller.pathName, default: 0] += 1
        return counts[controller.pathName]!
    }

    /// Records `controller` leaving at `now`; returns the dwell time in milliseconds (nil when its
    /// entry was not seen) and the page's entry count.
    public mutating func leave(_ controller: any ViewNode, now: UInt64) -> (duration: Int64?, count: Int?) {
        let start = starts.removeValue(forKey: ObjectIdentifier(controller))
        return (start.map { Int64((now &- $0) / 1_000_000) }, counts[controller.pathName])
    }
}
