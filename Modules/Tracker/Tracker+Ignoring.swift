import Interactions
import KVCConfig
import Matching
import ViewIdentity

/// Views the tracker silences (docs/privacy.md): a view marked `autotrack-ignore` (its node says
/// `isInIgnoredView`) or named by the plan's `ignore` patterns, and everything inside it, produce
/// no events: no click, no value, no page event of an ignored page, no `kvc_error`.
extension Tracker {
    /// Debug mode's line for an interaction on an ignored view (the counting is the caller's).
    func ignored(_ interaction: Interaction, path: ViewPath?, by reason: String) {
        guard let write = settings.debugOutput else { return }
        write(
            "autotrack debug: \(interaction.kind) path=\(path?.canonical ?? "-") code=\(interaction.eventName) "
                + "ignored (\(reason)): no event")
    }
}

extension EventShaper {
    /// Whether the plan's `ignore` patterns cover the view at `path` (it or an ancestor).
    func ignores(_ path: ViewPath) -> Bool { matcher.plan.ignores(path) }
}
