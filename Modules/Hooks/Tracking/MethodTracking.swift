import Interactions
import Synchronization

/// SPOC on any method (docs/hooks.md): the methods an observer's `TrackedMethodSource` tracks are
/// hooked through the aspect registry, by type name, after the call, and each call is told to the
/// source.
///
/// The hooks of one source in one registry are shared by every hook system of that registry
/// reporting to it, so two systems never report a call twice; they go when the last one stops.
/// They follow the source: after every change of its methods, entries it adds are hooked and
/// entries it no longer has unhooked. A class is checked when the registry knows it
/// (`AspectRegistry.declare`, an object of it created, or a full name the runtime finds): a
/// selector that is neither one of its hook points nor one of its `actionMethods` is refused, and
/// the refusal told to the source. Target actions need nothing here: the proxies track them. A
/// class the registry does not know yet is left alone.
enum MethodTracking {
    /// What is hooked in one registry for one source.
    struct Attachment: Sendable {
        /// Hook systems of the registry reporting to the source.
        var users = 0
        var tokens: [TrackedMethod: AspectToken] = [:]
    }

    /// A hook system of `aspects` reporting to `source` started: hooks its methods there.
    static func attach(_ source: any TrackedMethodSource, to aspects: AspectRegistry) {
        aspects.methodTracking.withLock { all in
            all[ObjectIdentifier(source), default: Attachment()].users += 1
        }
        sync(source, in: aspects)
    }

    /// Makes the hooks of `source` in `aspects` those of its methods now; tells it what was refused.
    static func sync(_ source: any TrackedMethodSource, in aspects: AspectRegistry) {
        let methods = source.trackedMethods
        let refusals = aspects.methodTracking.withLock { all -> [TrackedMethod: MethodRefusal]? in
            let id = ObjectIdentifier(source)
            guard var a = all[id] else { return nil }
            var (wanted, refusals) = hookable(methods, in: aspects)
            for (method, token) in a.tokens where !wanted.contains(method) {
                token.remove()
                a.tokens[method] = nil
            }
            for method in wanted where a.tokens[method] == nil {
                do {
                    a.tokens[method] = try aspects.hook(typeNamed: method.className, method.selector, position: .after) {
                        [weak source] invocation in
                        source?.trackedMethodCalled(method, on: invocation.instance)
                    }
                } catch {
                    refusals[method] = MethodRefusal(expected: "a method that can be hooked", found: String(describing: error))
                }
            }
            all[id] = a
            return refusals
        }
        if let refusals { source.trackedMethodsRefused(refusals, in: ObjectIdentifier(aspects)) }
    }

    /// That hook system stopped: the last one to stop removes the hooks and clears the refusals.
    static func detach(_ source: any TrackedMethodSource, from aspects: AspectRegistry) {
        let tokens = aspects.methodTracking.withLock { all -> [AspectToken]? in
            let id = ObjectIdentifier(source)
            guard var a = all[id] else { return nil }
            a.users -= 1
            guard a.users == 0 else {
                all[id] = a
                return nil
            }
            all[id] = nil
            return Array(a.tokens.values)
        }
        guard let tokens else { return }
        for t in tokens { t.remove() }
        source.trackedMethodsRefused([:], in: ObjectIdentifier(aspects))
    }

    /// The methods to hook in `aspects` (known class, a hook point that is not a target action),
    /// and those refused (known class, no such method).
    private static func hookable(
        _ methods: Set<TrackedMethod>, in aspects: AspectRegistry
    ) -> (wanted: Set<TrackedMethod>, refusals: [TrackedMethod: MethodRefusal]) {
        var wanted: Set<TrackedMethod> = []
        var refusals: [TrackedMethod: MethodRefusal] = [:]
        for method in methods {
            guard let type = aspects.knownType(named: method.className) else { continue }
            if type.actionMethods.contains(ActionName(method.selector)) { continue }
            let names = type.hookPoints.map { $0.method }
            guard names.contains(method.selector) else {
                let known = (names + type.actionMethods.map { $0.name }).joined(separator: ", ")
                refusals[method] = MethodRefusal(
                    expected: "a method of \(method.className) (its hookable methods and actions: \(known))",
                    found: "\"\(method.selector)\"")
                continue
            }
            wanted.insert(method)
        }
        return (wanted, refusals)
    }
}
