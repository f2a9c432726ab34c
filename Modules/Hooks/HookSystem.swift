public import Interactions
import Synchronization

/// The codeless tracking layer: advice on the object model's hook points that turns what the UI
/// does into `Interaction`s for one observer, without the app's code calling anything.
///
/// `start()` installs every `InteractionHook` of `HookSystem.hooks` in `aspects` (as swizzling
/// would on iOS), then the methods the observer's `TrackedMethodSource` tracks
/// (Tracking/MethodTracking.swift); `stop()` removes them. Each hook is one file under `Tracking/`: target-action
/// (proxies, and `sendAction` for targets added before the start), lists, scrolls, pages, the app.
///
/// Instances are independent: tests give each its own `AspectRegistry` and clock.
public final class HookSystem: @unchecked Sendable {
    // Sendable by hand: `state` (a Mutex) guards every mutable field. `observer` never changes
    // and is called only from advice, which runs on the UI thread that drives the objects;
    // `impressions` is used only there too (page advice and `checkImpressions(in:)`).

    /// The hooks `start()` installs, in order. Adding a hook: a file with an `InteractionHook`, listed here.
    static var hooks: [any InteractionHook.Type] {
        [
            TargetActionTracking.self, GestureTracking.self, ListTracking.self, ScrollTracking.self, PageTracking.self,
            AppTracking.self,
        ]
    }

    public let aspects: AspectRegistry
    public let clock: any InteractionClock
    let observer: any InteractionObserver
    /// Watches the views on screen for impressions when the observer has impression rules
    /// (Tracking/ImpressionTracking.swift); nil when it cannot have any.
    let impressions: ImpressionWatcher?
    /// What the observer tracks beyond interactions; nil when it tracks no methods.
    let methodSource: (any TrackedMethodSource)?

    struct State {
        var tokens: [AspectToken] = []
        var pages = PageVisits()
        var launched = false
        var running = false
        /// The app's time in the foreground, for `app_background` and `app_end`.
        var foreground = ForegroundTime()
    }

    let state = Mutex(State())

    /// A hook system reporting to `observer`, hooking objects of `aspects`, timing with `clock`.
    public init(observer: any InteractionObserver, aspects: AspectRegistry = .current, clock: any InteractionClock = SystemInteractionClock()) {
        self.observer = observer
        self.aspects = aspects
        self.clock = clock
        impressions = observer.offered((any ImpressionRules).self).map { rules in
            ImpressionWatcher(rules: rules, clock: clock) { observer.observe($0) }
        }
        methodSource = observer.offered((any TrackedMethodSource).self)
        methodSource?.onTrackedMethodsChange { [weak self] in
            guard let self, self.isRunning, let source = self.methodSource else { return }
            MethodTracking.sync(source, in: self.aspects)
        }
    }

    public var isRunning: Bool { state.withLock { $0.running } }

    /// How many times each page was entered, by page name.
    public var pageCounts: [String: Int] { state.withLock { $0.pages.counts } }

    /// Registers the advice; does nothing when already running. Throws when the registry refuses a
    /// hook (another class of the same hierarchy already hooks one of the methods), hooking nothing.
    public func start() throws(AspectError) {
        let first = state.withLock { s in
            defer { s.running = true }
            return !s.running
        }
        guard first else { return }
        var tokens: [AspectToken] = []
        do {
            for hook in HookSystem.hooks { tokens += try hook.install(on: self) }
        } catch {
            for t in tokens { t.remove() }
            state.withLock { $0.running = false }
            throw error
        }
        state.withLock { $0.tokens += tokens }
        if let methodSource { MethodTracking.attach(methodSource, to: aspects) }
    }

    /// Removes the advice; proxies already placed stay silent from now on.
    public func stop() {
        let (tokens, wasRunning) = state.withLock { s in
            let t = s.tokens
            let was = s.running
            s.tokens = []
            s.running = false
            return (t, was)
        }
        for t in tokens { t.remove() }
        if wasRunning, let methodSource { MethodTracking.detach(methodSource, from: aspects) }
    }

    /// Advice on `point` that hands the call to `body` while this system exists; with `condition`,
    /// only calls for which `condition(instance)` holds (asked before the call is built).
    func advise<Instance, Arguments, Result>(
        _ point: HookPoint<Instance, Arguments, Result>, _ position: AspectPosition,
        when condition: (@Sendable (Instance) -> Bool)? = nil,
        _ body: @escaping @Sendable (HookSystem, HookedCall<Instance, Arguments, Result>) -> Void
    ) throws(AspectError) -> AspectToken {
        try aspects.hook(point, position: position, when: condition) { [weak self] call in
            guard let self else { return }
            body(self, call)
        }
    }

    /// Hands an interaction to the observer.
    func report(_ interaction: Interaction) {
        observer.observe(interaction)
    }

    /// This system's identity, which its tracking proxies carry.
    var identity: ObjectIdentifier { ObjectIdentifier(self) }
}

/// One kind of tracking: the advice that turns some hook points into interactions.
protocol InteractionHook {
    /// Registers the advice for `system`; the tokens remove it.
    static func install(on system: HookSystem) throws(AspectError) -> [AspectToken]
}
