/// Receives every interaction, synchronously, on the UI thread, while the views are live.
///
/// Must be quick: it runs inside the user's tap. Heavy work (delivery) belongs on the
/// reporting system's queue, as `ReportingObserver` does. Every toolkit's hook system reports to
/// one; an observer that also hooks methods of its own where the UIKit-shaped hooks run adopts
/// `MethodHookingObserver` (Modules/Hooks) too.
public protocol InteractionObserver: AnyObject {
    func observe(_ interaction: Interaction)
}
