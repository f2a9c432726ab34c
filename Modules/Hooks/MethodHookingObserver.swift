public import Interactions

/// An interaction observer that hooks methods of its own in the registry a `HookSystem` hooks:
/// a tracker hooks its plan's tracked methods there (docs/hooks.md "SPOC on any method").
///
/// `HookSystem.start()` calls `hooksStarted(in:)` on an observer that adopts it, `stop()` calls
/// `hooksStopped(in:)`; any other observer is only told interactions.
public protocol MethodHookingObserver: InteractionObserver {
    /// A hook system reporting to this observer started hooking the objects of `aspects`: the
    /// observer may hook methods of its own there until `hooksStopped(in:)`.
    func hooksStarted(in aspects: AspectRegistry)
    /// That hook system stopped: what `hooksStarted(in:)` hooked goes.
    func hooksStopped(in aspects: AspectRegistry)
}
