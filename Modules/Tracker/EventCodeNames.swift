import Interactions
import Synchronization
import ViewIdentity

/// The event name of the last event code seen, so a repeated action on the same control does not
/// write its `Controller#Target#Action` name again (docs/performance.md "AppKit hooks").
///
/// One code is kept, found by equality of its three parts; another code is written and replaces it.
final class EventCodeNames: Sendable {
    private struct Last {
        /// False until a code is kept.
        var kept = false
        var code = EventCode(controller: "", target: "", action: "")
        var name = ""
    }

    private let last = Mutex(Last())

    /// `interaction.eventName` when the interaction has an event code, remembered or written now; nil without one.
    func name(of interaction: Interaction) -> String? {
        guard let code = interaction.eventCode else { return nil }
        if let known = last.withLock({ $0.kept && $0.code == code ? $0.name : nil }) { return known }
        let name = code.description
        last.withLock { $0 = Last(kept: true, code: code, name: name) }
        return name
    }
}
