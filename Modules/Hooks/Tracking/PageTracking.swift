import Interactions
import Synchronization
/// Pages: `viewDidAppear:` / `viewDidDisappear:` report `pageEnter` (with the entry count) and
/// `pageLeave` (with the dwell time); containers (navigation, tab bar controllers) are not pages.
enum PageTracking: InteractionHook {
    static func install(on system: HookSystem) throws(AspectError) -> [AspectToken] {
        let enter = try system.advise(.viewDidAppear, .after) { system, call in
            let controller = call.instance
            guard controller.isPage else { return }
            let now = system.clock.monotonicNanoseconds()
            let count = system.state.withLock { $0.pages.enter(controller, now: now) }
            system.impressions?.pageEntered(controller)
            system.report(.page(.pageEnter, controller, count: count, timestamp: system.clock.wallMilliseconds()))
        }
        let leave = try system.advise(.viewDidDisappear, .after) { system, call in
            let controller = call.instance
            guard controller.isPage else { return }
            let now = system.clock.monotonicNanoseconds()
            let (duration, count) = system.state.withLock { $0.pages.leave(controller, now: now) }
            system.report(
                .page(.pageLeave, controller, count: count, duration: duration, timestamp: system.clock.wallMilliseconds()))
        }
        return [enter, leave]
    }
}
