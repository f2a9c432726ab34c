import EventModel
import Hooks
import ViewIdentity

/// Runs a recorded session: turns each recorded interaction into the `Interaction` the hooks would
/// have delivered for it, and hands it to an observer (a `Tracker`), in order, synchronously.
///
/// The interactions carry what the hooks give a live app: event codes with the same default
/// actions (`tableView:didSelectRowAtIndexPath:`, `scrollViewDidEndDragging:willDecelerate:`),
/// control events, titles, the enclosing cell's index path, page names with aliases, per-page
/// enter counts and dwell times.
public struct SessionPlayer {
    /// The action list selections are reported under, as the hooks do.
    public static let selectAction = "tableView:didSelectRowAtIndexPath:"
    /// The action scrolls are reported under, as the hooks do.
    public static let scrollAction = "scrollViewDidEndDragging:willDecelerate:"

    public let recording: SessionRecording
    /// Milliseconds since the Unix epoch at `t = 0`.
    public let startTs: Int64

    /// A player for `recording`; `startTs` overrides the recording's (which defaults to `now`).
    public init(_ recording: SessionRecording, startTs: Int64? = nil, now: Int64) {
        self.recording = recording
        self.startTs = startTs ?? recording.startTs ?? now
    }

    /// Every interaction of the recording, as the hooks would deliver it (the nodes stay live in the recording).
    public func interactions() -> [Interaction] {
        var out: [Interaction] = []
        var pageCounts: [String: Int] = [:]
        var entered: [ObjectIdentifier: Int64] = [:]
        for step in recording.steps {
            guard case .interact(let r) = step else { continue }
            out.append(interaction(for: r, pageCounts: &pageCounts, entered: &entered))
        }
        return out
    }

    /// Plays the whole recording into `observer`; returns how many interactions it delivered.
    @discardableResult
    public func play(into observer: any InteractionObserver) -> Int {
        let all = interactions()
        for i in all { observer.observe(i) }
        return all.count
    }

    private func interaction(
        for r: RecordedInteraction, pageCounts: inout [String: Int], entered: inout [ObjectIdentifier: Int64]
    ) -> Interaction {
        let node = r.node
        let ts = startTs + r.t
        let page = HookSystem.pageName(of: node)
        let controllerType = SessionPlayer.controllerTypeName(of: node)
        func code(_ defaultAction: String?) -> EventCode? {
            guard let action = r.action ?? defaultAction else { return nil }
            return EventCode(sender: node, targetTypeName: r.target ?? controllerType, action: action)
        }
        switch r.kind {
        case .enter, .leave:
            let name = ViewPath.elementName(of: node)
            if r.kind == .enter { pageCounts[name, default: 0] += 1 }
            let id = ObjectIdentifier(node)
            var duration: Int64?
            if r.kind == .enter {
                entered[id] = r.t
            } else if let start = entered.removeValue(forKey: id) {
                duration = r.t - start
            }
            return Interaction(
                kind: r.kind == .enter ? .pageEnter : .pageLeave, node: node, title: node.title, duration: duration,
                page: name, pageCount: pageCounts[name], timestamp: ts)
        case .tap:
            return Interaction(
                kind: .click, node: node, eventCode: code(nil), controlEvents: .touchUpInside, title: node.title,
                indexPath: SessionPlayer.enclosingCell(of: node)?.cellIndexPath, page: page, timestamp: ts)
        case .change:
            return Interaction(
                kind: .valueChanged, node: node, eventCode: code(nil), controlEvents: .valueChanged, title: node.title,
                value: SessionPlayer.controlValue(r.value, selectedIndex: r.selectedIndex),
                indexPath: SessionPlayer.enclosingCell(of: node)?.cellIndexPath,
                page: page, timestamp: ts)
        case .gesture:
            return Interaction(
                kind: .gesture, node: node, eventCode: code(nil), title: node.title,
                indexPath: SessionPlayer.enclosingCell(of: node)?.cellIndexPath, page: page,
                gesture: "UITapGestureRecognizer", timestamp: ts)
        case .select:
            return Interaction(
                kind: .listItemClick, node: node, eventCode: code(SessionPlayer.selectAction), title: node.title,
                indexPath: node.cellIndexPath, page: page, timestamp: ts)
        case .scroll:
            return Interaction(
                kind: .scroll, node: node, eventCode: code(SessionPlayer.scrollAction),
                value: SessionPlayer.controlValue(r.value, selectedIndex: nil), page: page, timestamp: ts)
        }
    }

    /// A recorded `value`: a boolean is a switch's `isOn`, a number a control's `value`; with a segment index.
    static func controlValue(_ v: JSONValue?, selectedIndex: Int?) -> ControlValue? {
        var c = ControlValue(selectedIndex: selectedIndex)
        switch v {
        case .bool(let b): c.isOn = b
        case .int(let i): c.value = Double(i)
        case .double(let d): c.value = d
        default: break
        }
        return c.isEmpty ? nil : c
    }

    /// The runtime type of the node's controller (viewpath.md §4's walk): the default target.
    static func controllerTypeName(of node: any ViewNode) -> String {
        var n: any ViewNode = node
        while true {
            if n.role == .controller || n.role == .window { return n.typeName }
            guard let parent = n.parentNode else { return n.typeName }
            n = parent
        }
    }

    static func enclosingCell(of node: any ViewNode) -> (any ViewNode)? {
        var n: (any ViewNode)? = node
        while let current = n {
            if current.role == .cell { return current }
            n = current.parentNode
        }
        return nil
    }
}
