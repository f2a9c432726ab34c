import DemoShop
import Hooks
import Interactions
import ViewIdentity

/// Passes every interaction on, and while `isOn()` says circle mode is on (or `demo --snapshots`)
/// hands a snapshot of each page entered to `send` (docs/agent.md "Snapshots"): the simulated
/// shop's picture drawn from its frames, and its tree with `props`. An observer in front of the
/// tracker, as `PageTreeWriter` is, so DemoShop and Hooks know nothing of it.
final class PageSnapshotter: InteractionRelay {
    let next: any InteractionObserver
    private let isOn: () -> Bool
    private let send: (PageSnapshot) -> Void
    /// Whether the plan's `ignore` patterns cover a path: those views are blanked (docs/privacy.md).
    private let ignoring: (ViewPath) -> Bool
    /// Snapshots handed over.
    private(set) var taken = 0

    init(
        next: any InteractionObserver, isOn: @escaping () -> Bool, ignoring: @escaping (ViewPath) -> Bool = { _ in false },
        send: @escaping (PageSnapshot) -> Void
    ) {
        self.next = next
        self.isOn = isOn
        self.ignoring = ignoring
        self.send = send
    }

    func observe(_ interaction: Interaction) {
        if interaction.kind == .pageEnter, let node = interaction.node, isOn() {
            send(SimulatedSnapshot.take(node, capturedAt: interaction.timestamp, ignoring: ignoring))
            taken += 1
        }
        next.observe(interaction)
    }

}
