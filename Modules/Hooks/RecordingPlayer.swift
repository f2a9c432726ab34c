import EventModel
public import Interactions
import ViewIdentity

/// Runs a recorded session: turns each recorded interaction into the `Interaction` the hooks would
/// have delivered for it, and hands it to an observer (a `Tracker`), in order, synchronously.
///
/// It builds them with the hooks' own mapping (`Interaction.targetAction`, `.listSelection`,
/// `.scroll`, `.page`, `PageVisits`), so a recorded tap and a live one give the same event: event
/// codes with the same default actions, control events, titles, the enclosing cell's index path,
/// page names with aliases, per-page enter counts and dwell times.
public struct RecordingPlayer {
    /// The action list selections are reported under, as the hooks do.
    public static let selectAction = HookPoint.didSelectRow.method
    /// The action scrolls are reported under, as the hooks do.
    public static let scrollAction = HookPoint.didEndDragging.method
    /// The recogniser a recorded gesture stands for.
    public static let gestureRecognizer = "UITapGestureRecognizer"

    public let recording: Recording
    /// Milliseconds since the Unix epoch at `t = 0`.
    public let startTs: Int64

    /// A player for `recording`; `startTs` overrides the recording's (which defaults to `now`).
    public init(_ recording: Recording, startTs: Int64? = nil, now: Int64) {
        self.recording = recording
        self.startTs = startTs ?? recording.startTs ?? now
    }

    /// Every interaction of the recording, as the hooks would deliver it (the nodes stay live in the recording).
    public func interactions() -> [Interaction] {
        var out: [Interaction] = []
        var pages = PageVisits()
        for step in recording.steps {
            guard case .interact(let r) = step else { continue }
            out.append(interaction(for: r, pages: &pages))
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

    private func interaction(for r: RecordedInteraction, pages: inout PageVisits) -> Interaction {
        let node = r.node
        let ts = startTs + r.t
        // The target defaults to the node's controller (docs/viewpath.md §4's walk), as a controller's own actions.
        let targetName = r.target.map(TypeName.name) ?? ViewPlacement(of: node).codeController
        let now = UInt64(max(0, r.t)) * 1_000_000
        switch r.kind {
        case .enter:
            return .page(.pageEnter, node, count: pages.enter(node, now: now), timestamp: ts)
        case .leave:
            let (duration, count) = pages.leave(node, now: now)
            return .page(.pageLeave, node, count: count, duration: duration, timestamp: ts)
        case .tap:
            return .targetAction(
                .click, on: node, targetName: targetName, action: r.action, controlEvents: .touchUpInside, timestamp: ts)
        case .change:
            return .targetAction(
                .valueChanged, on: node, targetName: targetName, action: r.action, controlEvents: .valueChanged,
                value: RecordingPlayer.controlValue(r.value, selectedIndex: r.selectedIndex), timestamp: ts)
        case .gesture:
            return .targetAction(
                .gesture, on: node, targetName: targetName, action: r.action, gesture: RecordingPlayer.gestureRecognizer,
                tapCount: 1, timestamp: ts)
        case .select:
            return .listSelection(
                list: node.parentNode ?? node, cell: node, indexPath: node.cellIndexPath ?? CellIndexPath(section: 0, row: 0),
                delegateName: targetName, action: r.action ?? RecordingPlayer.selectAction, timestamp: ts)
        case .scroll:
            return .scroll(
                node, delegateName: targetName, action: r.action ?? RecordingPlayer.scrollAction,
                value: RecordingPlayer.controlValue(r.value, selectedIndex: nil), timestamp: ts)
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
}
