import Interactions
import Synchronization
/// The app: launch (once per hook system), background, foreground and termination, before the
/// delegate hears of them; `app_background` and `app_end` carry the foreground time (`ForegroundTime`).
enum AppTracking: InteractionHook {
    static func install(on system: HookSystem) throws(AspectError) -> [AspectToken] {
        let launch = try system.advise(.didFinishLaunching, .before) { system, _ in
            let first = system.state.withLock { s in
                defer { s.launched = true }
                return !s.launched
            }
            if first { app(.appStart, system) }
        }
        let background = try system.advise(.didEnterBackground, .before) { system, _ in app(.appBackground, system) }
        let foreground = try system.advise(.willEnterForeground, .before) { system, _ in app(.appForeground, system) }
        let end = try system.advise(.willTerminate, .before) { system, _ in app(.appEnd, system) }
        return [launch, background, foreground, end]
    }

    private static func app(_ kind: Interaction.Kind, _ system: HookSystem) {
        let interaction = system.state.withLock { $0.foreground.interaction(kind, clock: system.clock) }
        system.report(interaction)
    }
}
