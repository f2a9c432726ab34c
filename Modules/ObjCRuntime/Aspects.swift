import CObjCRuntime

/// Aspects (the Objective-C Aspects library's API) on the real runtime: advice before, after or instead of any Objective-C
/// method by selector, for every instance of a class or for one object, removed by its token.
///
/// All advice for one class and selector shares one `MethodHook`; the original implementation
/// runs unless some matching advice is `instead`. Per-object advice goes when its object is
/// deallocated (the object's class's `-dealloc` is watched). A class not registered yet (the app's
/// own classes, before `main`) is hooked when the runtime registers it. Use from the thread the
/// hooked methods run on (AppKit: the main thread); advice runs there, synchronously.
public enum Aspects {
    public enum Position: Sendable { case before, after, instead }

    /// Hooks `selector` of the class named `className`, now or when the class is registered.
    public static func hook(
        className: String, _ selector: ObjCSelector, _ position: Position, _ body: @escaping (Invocation) -> Void
    ) throws(ObjCError) -> AspectToken {
        if let cls = ObjCClass.named(className) { return try hook(cls, selector, position, body) }
        let token = AspectToken(advice: nil)
        Registry.shared.pending.append(Pending(className: className, selector: selector, position: position, body: body, token: token))
        Registry.shared.watchLoading()
        return token
    }

    /// Hooks `selector` for every instance of `cls` (and of its subclasses).
    public static func hook(
        _ cls: ObjCClass, _ selector: ObjCSelector, _ position: Position, _ body: @escaping (Invocation) -> Void
    ) throws(ObjCError) -> AspectToken {
        let advice = Advice(position: position, object: nil, body: body)
        try Registry.shared.add(advice, cls: cls, selector: selector)
        return AspectToken(advice: advice)
    }

    /// Hooks `selector` for `object` only (its runtime class is hooked; other instances run
    /// unadvised). The advice goes when the object is deallocated.
    public static func hook(
        object: ObjCObject, _ selector: ObjCSelector, _ position: Position, _ body: @escaping (Invocation) -> Void
    ) throws(ObjCError) -> AspectToken {
        let advice = Advice(position: position, object: object, body: body)
        let cls = object.runtimeClass
        try Registry.shared.add(advice, cls: cls, selector: selector)
        do {
            try Registry.shared.watchDeallocation(of: cls)
        } catch {
            Registry.shared.remove(advice)
            throw error
        }
        return AspectToken(advice: advice)
    }

    /// How many advices are installed now (tests; docs/objc.md).
    public static var installedCount: Int { Registry.shared.hooks.values.reduce(0) { $0 + $1.advices.count } }

    final class Advice {
        let position: Position
        /// The one object advised; nil: every instance.
        var object: ObjCObject?
        let body: (Invocation) -> Void
        var key: Key?

        init(position: Position, object: ObjCObject?, body: @escaping (Invocation) -> Void) {
            self.position = position
            self.object = object
            self.body = body
        }

        func applies(to receiver: ObjCObject) -> Bool { object == nil || object == receiver }
    }

    struct Key: Hashable {
        let cls: ObjCClass
        let selector: String
    }

    final class Hooked {
        var hook: MethodHook?
        var advices: [Advice] = []
    }

    struct Pending {
        let className: String
        let selector: ObjCSelector
        let position: Position
        let body: (Invocation) -> Void
        let token: AspectToken
    }

    final class Registry {
        // Main-thread state, like the methods it advises (see `Aspects`).
        nonisolated(unsafe) static let shared = Registry()
        var hooks: [Key: Hooked] = [:]
        var pending: [Pending] = []
        private var watchingLoads = false
        private var deallocWatchers: [ObjCClass: MethodHook] = [:]

        func add(_ advice: Advice, cls: ObjCClass, selector: ObjCSelector) throws(ObjCError) {
            let key = Key(cls: cls, selector: selector.name)
            if let hooked = hooks[key] {
                hooked.advices.append(advice)
                advice.key = key
                return
            }
            let hooked = Hooked()
            hooked.hook = try MethodHook(cls: cls, selector: selector) { phase, call in
                Registry.run(hooked, phase, call)
            }
            hooked.advices.append(advice)
            hooks[key] = hooked
            advice.key = key
        }

        static func run(_ hooked: Hooked, _ phase: AdvicePhase, _ call: Invocation) -> Bool {
            let matching = hooked.advices.filter { $0.applies(to: call.receiver) }
            switch phase {
            case .before:
                for a in matching where a.position == .before { a.body(call) }
                let instead = matching.filter { $0.position == .instead }
                for a in instead { a.body(call) }
                return !instead.isEmpty
            case .after:
                for a in matching where a.position == .after { a.body(call) }
                return false
            }
        }

        func remove(_ advice: Advice) {
            guard let key = advice.key, let hooked = hooks[key] else { return }
            hooked.advices.removeAll { $0 === advice }
            advice.key = nil
            if hooked.advices.isEmpty {
                hooked.hook?.remove()
                hooks[key] = nil
            }
        }

        /// Per-object advice of a deallocated object goes with it.
        func watchDeallocation(of cls: ObjCClass) throws(ObjCError) {
            if deallocWatchers.keys.contains(where: { cls.isSubclass(of: $0) }) { return }
            deallocWatchers[cls] = try MethodHook(cls: cls, selector: "dealloc", phases: [.before], allowingForbidden: true) {
                [unowned self] _, call in
                self.objectDeallocated(call.receiver)
                return false
            }
        }

        private func objectDeallocated(_ object: ObjCObject) {
            for hooked in Array(hooks.values) {
                for advice in hooked.advices where advice.object == object { remove(advice) }
            }
        }

        func watchLoading() {
            guard !watchingLoads else { return }
            watchingLoads = true
            ClassLoading.onLoad { [unowned self] cls in self.classLoaded(cls) }
        }

        private func classLoaded(_ cls: ObjCClass) {
            let name = cls.name
            let ready = pending.filter { $0.className == name && !$0.token.removed }
            pending.removeAll { $0.className == name }
            for p in ready {
                let advice = Advice(position: p.position, object: nil, body: p.body)
                do {
                    try add(advice, cls: cls, selector: p.selector)
                    p.token.advice = advice
                } catch {
                    p.token.failure = error
                }
            }
        }
    }
}

/// Removes the advice it was returned for (`remove()`); removing twice does nothing.
public final class AspectToken {
    var advice: Aspects.Advice?
    var removed = false
    /// For a class hooked when it loaded: why its advice could not be installed.
    public internal(set) var failure: ObjCError?

    init(advice: Aspects.Advice?) { self.advice = advice }

    /// Whether the advice is installed now (a class not loaded yet: not yet).
    public var isActive: Bool { advice?.key != nil }

    public func remove() {
        removed = true
        if let advice { Aspects.Registry.shared.remove(advice) }
        advice = nil
    }
}
