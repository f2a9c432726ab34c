import Synchronization
/// The app: launch (once per hook system), background and foreground, before the delegate hears of them.
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
        return [launch, background, foreground]
    }

    private static func app(_ kind: Interaction.Kind, _ system: HookSystem) {
        system.report(Interaction(kind: kind, timestamp: system.clock.wallMilliseconds()))
    }
}
