import Interactions
import ViewIdentity

/// Scroll views: the end of a drag reports `scroll` with the offset.
enum ScrollTracking: InteractionHook {
    static func install(on system: HookSystem) throws(AspectError) -> [AspectToken] {
        let drags = try system.advise(.didEndDragging, .after) { system, call in
            let scrollView = call.instance
            system.report(
                .scroll(
                    scrollView, delegateName: scrollView.scrollDelegate.map { TypeName.name(String(reflecting: type(of: $0))) },
                    action: HookPoint.didEndDragging.method, value: ControlValue(value: scrollView.contentOffset),
                    timestamp: system.clock.wallMilliseconds()))
        }
        return [drags]
    }
}
