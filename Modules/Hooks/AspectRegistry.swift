import Synchronization
import ViewIdentity

/// Where advice runs relative to the original method.
public enum AspectPosition: String, Sendable, Hashable {
    case before, after, instead
}

/// How an advice behaves beyond its position.
public struct AspectOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The advice runs once, then removes itself (Aspects' `AspectOptionAutomaticRemoval`).
    public static let automaticRemoval = AspectOptions(rawValue: 1 << 0)
}

/// Before / after / instead advice on hookable methods (Aspects, in Swift).
///
/// A method is hookable when its implementation runs through `invoke`; the object model's
/// lifecycle and action methods do (their `HookPoint`s), and app code makes its own methods
/// hookable the same way. Advice on a class applies to its subclasses, as a swizzled method does;
/// advice on one object applies to that object only, for as long as it lives: it goes with the
/// object (a responder's deinit removes it; for other objects a weak reference, checked on every
/// look-up and swept as the registry grows, tells that the object is gone), so an object
/// allocated later at the same address never runs it. Several advices on one method run in order
/// of registration: befores, then the insteads (the first registered outermost, each able to
/// `proceed()` to the next and finally to the original), then afters. An advice that throws is
/// reported through `diagnostics` and never breaks the call: a throwing instead advice that did
/// not proceed is followed by the original.
///
/// Like Aspects, the registry refuses (with an `AspectError`) hooks on methods a class's method
/// table lacks or declares with another signature, on methods that must not be hooked, `instead`
/// on `dealloc`, and a method already hooked on another class of the same hierarchy.
///
/// Registration is thread-safe; calls take the lock only to read a cached list of advices.
/// UI objects capture `AspectRegistry.current` when created (the process-wide `shared` unless a
/// test or a run binds its own with `AspectRegistry.$current.withValue`).
public final class AspectRegistry: Sendable {
    /// What an advice applies to.
    enum Scope: Sendable, Hashable {
        /// This class and its subclasses.
        case type(ObjectIdentifier)
        /// Classes whose name, with or without module prefix, is this (for configuration files).
        case name(String)
        /// One object.
        case instance(ObjectIdentifier)
    }

    struct Advice: Sendable {
        let id: UInt64
        let scope: Scope
        let scopeDescription: String
        let method: String
        let position: AspectPosition
        let options: AspectOptions
        /// The class a type or name scope resolved to (nil for one object).
        let hookedClass: AnyClass?
        /// Asked before the call (no invocation made yet): false leaves this call to the other advices.
        let condition: (@Sendable (AnyObject) -> Bool)?
        let body: @Sendable (AspectInvocation) throws -> Void
    }

    /// The advices that apply to one method of one concrete class, in registration order.
    struct Resolved: Sendable {
        var before: [Advice] = []
        var instead: [Advice] = []
        var after: [Advice] = []
        /// Advices to remove before they run (automatic removal).
        var expiring: [UInt64] = []
        /// Some advice has a condition, to ask before the call.
        var conditional = false
        var isEmpty: Bool { before.isEmpty && instead.isEmpty && after.isEmpty }

        mutating func append(_ advice: Advice) {
            if advice.condition != nil { conditional = true }
            if advice.options.contains(.automaticRemoval) { expiring.append(advice.id) }
            switch advice.position {
            case .before: before.append(advice)
            case .instead: instead.append(advice)
            case .after: after.append(advice)
            }
        }

        /// The advices whose condition holds for `instance` (each asked once, in order), or nil when
        /// none applies. Builds nothing while no advice holds: the common case of a conditional
        /// advice declining (the `sendAction` fallback on a watched tap) costs the questions only.
        func applying(to instance: AnyObject) -> Resolved? {
            var kept = Resolved()
            // By index: reading one field copies the condition only, not the whole advice.
            for i in before.indices where before[i].condition?(instance) ?? true { kept.append(before[i]) }
            for i in instead.indices where instead[i].condition?(instance) ?? true { kept.append(instead[i]) }
            for i in after.indices where after[i].condition?(instance) ?? true { kept.append(after[i]) }
            guard !kept.isEmpty else { return nil }
            kept.conditional = false
            return kept
        }
    }

    /// A resolved list as the cache holds it: one reference to retain per call, not four arrays.
    final class CachedResolved: Sendable {
        let value: Resolved
        init(_ value: Resolved) { self.value = value }
    }

    struct CallKey: Hashable {
        let object: ObjectIdentifier
        let method: String

        /// The object and the method's length: hashing a method's characters on every call cost
        /// more than the rare collision of two methods of one length (told apart by `==`).
        func hash(into hasher: inout Hasher) {
            hasher.combine(object)
            hasher.combine(method.utf8.count)
        }
    }

    /// One object's own advices, with a weak reference to the object: its address (the key) is
    /// reused once it is gone, and the advice must not pass to the next object there.
    struct ObjectAdvice: Sendable {
        let reference: WeakObject
        var byMethod: [String: [Advice]] = [:]
        var count: Int { byMethod.values.reduce(0) { $0 + $1.count } }
    }

    /// A weak reference to an object with advice of its own.
    ///
    /// `@unchecked Sendable`: the reference is set once, in `init`, and read only inside the
    /// registry's mutex (`state`), and only to test it for nil or compare identities; the object
    /// is never used through it. (A weak load is itself thread-safe in the Swift runtime.)
    final class WeakObject: @unchecked Sendable {
        private weak var object: AnyObject?
        init(_ object: AnyObject) { self.object = object }
        /// The object is gone, or in its deinit.
        var isGone: Bool { object == nil }
        func refers(to other: AnyObject) -> Bool { object === other }
    }

    struct State {
        var nextID: UInt64 = 1
        var byMethod: [String: [Advice]] = [:]
        var cache: [CallKey: CachedResolved] = [:]
        /// Per-object advices, by object.
        var byInstance: [ObjectIdentifier: ObjectAdvice] = [:]
        /// The size of `byInstance` at which the advice of objects gone is swept out (twice what
        /// stayed at the last sweep, at least 64): the registry shrinks with its objects.
        var sweepAt = 64
        /// The methods running with advice now, per object: a call through `super` inside one runs
        /// bare. A short list (calls nest a few deep), so no hashing on the way in and out.
        var active: [CallKey] = []
        /// Classes known by name (`declare`, or the first object of a class), full and without module prefix.
        var known: [String: [ObjectIdentifier: AnyClass]] = [:]
        var declared: Set<ObjectIdentifier> = []
    }

    private let state = Mutex(State())
    /// The tracked methods hooked here, by source (Tracking/MethodTracking.swift).
    let methodTracking = Mutex<[ObjectIdentifier: MethodTracking.Attachment]>([:])
    /// Registered advices, read without the lock so unhooked calls cost one atomic load.
    private let adviceCount = Atomic<Int>(0)
    private let diagnostics: @Sendable (AspectFailure) -> Void

    /// A registry whose advice failures go to `diagnostics` (standard error by default).
    public init(diagnostics: @escaping @Sendable (AspectFailure) -> Void = AspectFailure.writeToStandardError) {
        self.diagnostics = diagnostics
    }

    /// The process-wide registry, like the Objective-C runtime's method tables.
    public static let shared = AspectRegistry()

    /// The registry new UI objects join: `shared` unless bound for a task with `$current.withValue`.
    @TaskLocal public static var current: AspectRegistry = shared

    /// Methods no advice may wrap: the reference-counting and message-forwarding machinery
    /// (Aspects' blacklist: `retain`, `release`, `autorelease`, `forwardInvocation:`).
    public static let forbiddenMethods: Set<String> = ["retain", "release", "autorelease", "forwardInvocation:"]

    /// How many advices are registered (the advice of objects gone no longer counts).
    public var count: Int {
        let dropped = state.withLock { s in s.byInstance.isEmpty ? 0 : AspectRegistry.sweep(&s) }
        if dropped > 0 { adviceCount.subtract(dropped, ordering: .releasing) }
        return adviceCount.load(ordering: .acquiring)
    }

    /// How many objects have advice of their own (their entries, live or not yet swept).
    var objectsWithAdvice: Int { state.withLock { $0.byInstance.count } }

    // MARK: Registering

    /// Adds advice on `point` of `type` (its declaring class by default) and its subclasses.
    ///
    /// With `condition`, the advice applies to a call only when `condition(instance)` holds, asked
    /// before anything of the call is built: a call that no advice applies to costs a look-up and
    /// the conditions, as an unhooked one nearly does. (A hook system's `sendAction:` fallback
    /// uses it: "is this registration watched by my proxy?")
    @discardableResult
    public func hook<Instance, Arguments, Result>(
        _ point: HookPoint<Instance, Arguments, Result>, on type: Instance.Type = Instance.self,
        position: AspectPosition, options: AspectOptions = [], when condition: (@Sendable (Instance) -> Bool)? = nil,
        _ body: @escaping @Sendable (HookedCall<Instance, Arguments, Result>) throws -> Void
    ) throws(AspectError) -> AspectToken {
        try check(point.erased, on: type, position: position)
        var erased: (@Sendable (AnyObject) -> Bool)?
        if let condition {
            erased = { object in condition(unsafeDowncast(object, to: Instance.self)) }
        }
        return try add(
            scope: .type(ObjectIdentifier(type)), description: String(reflecting: type), class: type, method: point.method,
            position: position, options: options, condition: erased
        ) { invocation in try body(HookedCall(invocation)) }
    }

    /// Adds advice on `point` of `object` only; other objects of its class are not affected.
    @discardableResult
    public func hook<Instance, Arguments, Result>(
        _ point: HookPoint<Instance, Arguments, Result>, onObject object: Instance,
        position: AspectPosition, options: AspectOptions = [],
        _ body: @escaping @Sendable (HookedCall<Instance, Arguments, Result>) throws -> Void
    ) throws(AspectError) -> AspectToken {
        let type: AnyClass = Swift.type(of: object)
        try check(point.erased, on: type, position: position)
        return try add(
            scope: .instance(ObjectIdentifier(object)), description: String(reflecting: type), class: nil,
            method: point.method, position: position, options: options, object: object
        ) { invocation in try body(HookedCall(invocation)) }
    }

    /// Adds advice on `method` of the class named `typeName` (`HomeViewController` or
    /// `Shop.HomeViewController`) and its subclasses: how configuration files, which know classes
    /// only by name, hook methods. The advice reads the call untyped.
    ///
    /// The class must be known (`declare`d, an object of it created, or a full name the runtime
    /// finds); then its method table must hold `method`.
    @discardableResult
    public func hook(
        typeNamed typeName: String, _ method: String, position: AspectPosition, options: AspectOptions = [],
        _ body: @escaping @Sendable (AspectInvocation) throws -> Void
    ) throws(AspectError) -> AspectToken {
        guard let type = knownType(named: typeName) else {
            throw AspectError(.unknownType, type: typeName, method: method, "no class of that name is known")
        }
        guard let entry = type.hookPoints.first(where: { $0.method == method }) else {
            throw AspectError(.unknownMethod, type: typeName, method: method, Self.tableDescription(type))
        }
        try check(entry, on: type, position: position)
        return try add(
            scope: .name(typeName), description: typeName, class: type, method: method, position: position,
            options: options, body: body)
    }

    /// Makes `types` known by name, so `hook(typeNamed:…)` finds them before any object exists.
    public func declare(_ types: any Hookable.Type...) {
        for t in types { learn(t) }
    }

    /// The class named `name` (full, or without module prefix), when known; nil when unknown or ambiguous.
    public func knownType(named name: String) -> (any Hookable.Type)? {
        if let found = state.withLock({ s in s.known[name] }), found.count == 1 {
            return found.first!.value as? any Hookable.Type
        }
        if let t = _typeByName(name) as? any Hookable.Type {
            learn(t)
            return t
        }
        return nil
    }

    /// Notes the class of a new object (its first object only costs more than a set lookup).
    func learn(_ type: any Hookable.Type) {
        let id = ObjectIdentifier(type)
        let type: AnyClass = type
        state.withLock { s in
            guard s.declared.insert(id).inserted else { return }
            let full = String(reflecting: type)
            s.known[full, default: [:]][id] = type
            let short = TypeName.name(full)
            if short != full { s.known[short, default: [:]][id] = type }
        }
    }

    private static func tableDescription(_ type: any Hookable.Type) -> String {
        let methods = type.hookPoints.map(\.method)
        return "its hookable methods are \(methods.joined(separator: ", ")); make the method hookable or fix the name"
    }

    /// The refusals that do not depend on other advice: forbidden methods, `instead` on dealloc,
    /// methods the class's table lacks or declares with another signature.
    private func check(_ point: AnyHookPoint, on type: AnyClass, position: AspectPosition) throws(AspectError) {
        let name = String(reflecting: type)
        if AspectRegistry.forbiddenMethods.contains(point.method) {
            throw AspectError(.forbiddenMethod, type: name, method: point.method, "it is part of object lifetime and messaging")
        }
        if point.method == HookPoint.dealloc.method, position == .instead {
            throw AspectError(.insteadOnDealloc, type: name, method: point.method, "a deinit cannot be replaced; use before or after")
        }
        guard let table = type as? any Hookable.Type else { return }
        guard let declared = table.hookPoints.first(where: { $0.method == point.method }) else {
            throw AspectError(.unknownMethod, type: name, method: point.method, Self.tableDescription(table))
        }
        guard declared == point else {
            throw AspectError(
                .signatureMismatch, type: name, method: point.method,
                "the method is \(declared.signature), the advice expects \(point.signature)")
        }
    }

    private func add(
        scope: Scope, description: String, class type: AnyClass?, method: String, position: AspectPosition,
        options: AspectOptions, condition: (@Sendable (AnyObject) -> Bool)? = nil, object: AnyObject? = nil,
        body: @escaping @Sendable (AspectInvocation) throws -> Void
    ) throws(AspectError) -> AspectToken {
        /// Advices of objects gone, dropped on the way.
        var dropped = 0
        let reference = object.map(WeakObject.init)
        let result: Result<UInt64, AspectError> = state.withLock { s in
            if let type, let clash = hierarchyClash(s, type: type, method: method) {
                return .failure(
                    AspectError(
                        .alreadyHookedInHierarchy, type: description, method: method,
                        "\(clash) of the same class hierarchy already has advice on it; hook one class per hierarchy"))
            }
            let id = s.nextID
            s.nextID += 1
            let advice = Advice(
                id: id, scope: scope, scopeDescription: description, method: method, position: position,
                options: options, hookedClass: type, condition: condition, body: body)
            if case .instance(let key) = scope, let reference {
                if let stale = s.byInstance[key], stale.reference.isGone {
                    dropped += stale.count  // an object gone left it at this address
                    s.byInstance[key] = nil
                }
                s.byInstance[key, default: ObjectAdvice(reference: reference)].byMethod[method, default: []].append(advice)
                if s.byInstance.count >= s.sweepAt { dropped += AspectRegistry.sweep(&s) }
            } else {
                s.byMethod[method, default: []].append(advice)
                s.cache.removeAll(keepingCapacity: true)
            }
            return .success(id)
        }
        if dropped > 0 { adviceCount.subtract(dropped, ordering: .releasing) }
        let id = try result.get()
        adviceCount.add(1, ordering: .releasing)
        return AspectToken(id: id, registry: self)
    }

    /// Drops the advice of every object gone; returns how many advices went.
    private static func sweep(_ s: inout State) -> Int {
        var dropped = 0
        s.byInstance = s.byInstance.filter { _, entry in
            if !entry.reference.isGone { return true }
            dropped += entry.count
            return false
        }
        s.sweepAt = max(64, 2 * s.byInstance.count)
        return dropped
    }

    /// Drops the advice of the object `id` (its deinit has run its dealloc advice).
    private func forget(_ id: ObjectIdentifier) {
        let dropped = state.withLock { s in s.byInstance.removeValue(forKey: id)?.count ?? 0 }
        if dropped > 0 { adviceCount.subtract(dropped, ordering: .releasing) }
    }

    /// True while `object`'s deinit runs: no weak reference to it can be formed any more.
    static func isDeinitializing(_ object: AnyObject) -> Bool {
        WeakObject(object).isGone
    }

    /// Another class, a superclass or a subclass of `type`, whose `method` already has class advice.
    private func hierarchyClash(_ s: State, type: AnyClass, method: String) -> String? {
        let mine = ObjectIdentifier(type)
        for advice in s.byMethod[method] ?? [] {
            guard let other = advice.hookedClass, ObjectIdentifier(other) != mine else { continue }
            if AspectRegistry.isSubclass(type, of: other) || AspectRegistry.isSubclass(other, of: type) {
                return String(reflecting: other)
            }
        }
        return nil
    }

    // MARK: Removing

    /// Removes the advice `token` registered; false when it was already removed.
    @discardableResult
    public func remove(_ token: AspectToken) -> Bool {
        let removed = state.withLock { s in
            for (method, list) in s.byMethod {
                if let i = list.firstIndex(where: { $0.id == token.id }) {
                    s.byMethod[method]!.remove(at: i)
                    if s.byMethod[method]!.isEmpty { s.byMethod[method] = nil }
                    s.cache.removeAll(keepingCapacity: true)
                    return true
                }
            }
            for (key, entry) in s.byInstance {
                for (method, list) in entry.byMethod {
                    guard let i = list.firstIndex(where: { $0.id == token.id }) else { continue }
                    s.byInstance[key]!.byMethod[method]!.remove(at: i)
                    if s.byInstance[key]!.byMethod[method]!.isEmpty { s.byInstance[key]!.byMethod[method] = nil }
                    if s.byInstance[key]!.byMethod.isEmpty { s.byInstance[key] = nil }
                    return true
                }
            }
            return false
        }
        if removed { adviceCount.subtract(1, ordering: .releasing) }
        return removed
    }

    // MARK: Calling

    /// Runs `original` as the hook point `point` of `instance`, with the advices that apply.
    ///
    /// `arguments` are what advices see (built only when some advice applies).
    public func invoke<Instance, Arguments, Result>(
        _ point: HookPoint<Instance, Arguments, Result>, on instance: Instance, arguments: @autoclosure () -> Arguments,
        original: () -> Result
    ) -> Result {
        if adviceCount.load(ordering: .acquiring) == 0 { return original() }
        return call(instance, point.method, original: original) { TypedInvocation(instance: instance, method: point.method, typed: arguments()) }
    }

    /// Runs `original` as the hookable method `method` of `instance` (untyped: app methods hooked by name).
    public func invoke<Result>(
        _ instance: AnyObject, _ method: String, arguments: @autoclosure () -> Any = (), original: () -> Result
    ) -> Result {
        if adviceCount.load(ordering: .acquiring) == 0 { return original() }
        return call(instance, method, original: original) { TypedInvocation(instance: instance, method: method, typed: arguments()) }
    }

    private func call<Result>(
        _ instance: AnyObject, _ method: String, original: () -> Result, makeInvocation: () -> AspectInvocation
    ) -> Result {
        let key = CallKey(object: ObjectIdentifier(instance), method: method)
        guard let resolved = enter(instance, key) else { return original() }
        defer { leave(key) }
        return withoutActuallyEscaping(original) { original in
            let invocation = makeInvocation()
            for advice in resolved.before { run(advice, invocation) }
            // The original's result, typed, while no advice replaces it: returned without a cast.
            var own: Result?
            if resolved.instead.isEmpty {
                let value = original()
                own = value
                invocation.result = value
            } else {
                runInstead(resolved.instead[...], invocation, original: { original() })
            }
            for advice in resolved.after { run(advice, invocation) }
            if !resolved.instead.isEmpty { invocation.proceedBody = nil }
            if let own, !invocation.replaced { return own }
            if let value = invocation.result as? Result { return value }
            // An instead advice that neither proceeded nor set a value: the type's zero value, as
            // Aspects leaves a zeroed return; a type without one gets the original's result.
            if let zero = ZeroValue.of(Result.self) { return zero }
            return original()
        }
    }

    /// A deinit's advice: `before` and `after` (instead is refused when registered); then the
    /// object's own advice goes with it.
    func invokeDealloc(_ instance: UIResponder) {
        if adviceCount.load(ordering: .acquiring) == 0 { return }
        invoke(instance, HookPoint.dealloc.method, arguments: ()) {}
        forget(ObjectIdentifier(instance))
    }

    /// The advices for this call, and the call marked running; nil when none apply (their
    /// conditions asked) or the same method of the same object is already running with advice (an
    /// override calling `super`).
    private func enter(_ instance: AnyObject, _ key: CallKey) -> Resolved? {
        let dynamicType: AnyClass = type(of: instance)
        let classKey = CallKey(object: ObjectIdentifier(dynamicType), method: key.method)
        /// Advices of an object gone whose address `instance` now has, dropped.
        var dropped = 0
        defer { if dropped > 0 { adviceCount.subtract(dropped, ordering: .releasing) } }
        let found: CachedResolved? = state.withLock { s in
            var cached: CachedResolved
            if let hit = s.cache[classKey] {
                cached = hit
            } else {
                var built = Resolved()
                if let list = s.byMethod[key.method] {
                    let scopes = AspectRegistry.scopes(of: dynamicType)
                    for advice in list where scopes.contains(advice.scope) { built.append(advice) }
                }
                cached = CachedResolved(built)
                s.cache[classKey] = cached
            }
            if !s.byInstance.isEmpty, let entry = s.byInstance[key.object] {
                // Its own object, alive or in its deinit (the dealloc advice); else one gone.
                if entry.reference.refers(to: instance) || (entry.reference.isGone && AspectRegistry.isDeinitializing(instance)) {
                    if let mine = entry.byMethod[key.method] {
                        var withMine = cached.value
                        for advice in mine { withMine.append(advice) }
                        cached = CachedResolved(withMine)
                    }
                } else {
                    dropped = entry.count
                    s.byInstance[key.object] = nil
                }
            }
            if cached.value.isEmpty { return nil }
            // Conditions are asked outside the lock (they read the object); marked running after.
            if cached.value.conditional { return cached }
            return AspectRegistry.markRunning(&s, key) ? cached : nil
        }
        guard let found else { return nil }
        let resolved: Resolved
        if found.value.conditional {
            guard let applying = found.value.applying(to: instance) else { return nil }
            guard state.withLock({ s in AspectRegistry.markRunning(&s, key) }) else { return nil }
            resolved = applying
        } else {
            resolved = found.value
        }
        // Automatic removal: taken out before it runs, so it runs once even if the call re-enters.
        for id in resolved.expiring { remove(AspectToken(id: id, registry: self)) }
        return resolved
    }

    /// Marks the call running; false when the same method of the same object already runs with advice.
    private static func markRunning(_ s: inout State, _ key: CallKey) -> Bool {
        for running in s.active where running.object == key.object && running.method == key.method { return false }
        s.active.append(key)
        return true
    }

    private func leave(_ key: CallKey) {
        state.withLock { s in
            if let i = s.active.lastIndex(where: { $0.object == key.object && $0.method == key.method }) { s.active.remove(at: i) }
        }
    }

    private func runInstead(_ chain: ArraySlice<Advice>, _ invocation: AspectInvocation, original: @escaping () -> Any) {
        guard let advice = chain.first else {
            invocation.result = original()
            return
        }
        var proceeded = false
        let saved = invocation.proceedBody
        invocation.proceedBody = { [unowned invocation] in
            guard !proceeded else { return }
            proceeded = true
            self.runInstead(chain.dropFirst(), invocation, original: original)
        }
        invocation.position = .instead
        do {
            try advice.body(invocation)
        } catch {
            report(advice, error)
            if !proceeded { invocation.proceed() }
        }
        invocation.proceedBody = saved
    }

    private func run(_ advice: Advice, _ invocation: AspectInvocation) {
        invocation.position = advice.position
        do { try advice.body(invocation) } catch { report(advice, error) }
    }

    private func report(_ advice: Advice, _ error: any Error) {
        diagnostics(
            AspectFailure(
                typeName: advice.scopeDescription, method: advice.method, position: advice.position, error: String(describing: error)))
    }

    // MARK: Class chains

    /// A class and its superclasses, by identity and by name (full and rule 3's).
    static func scopes(of type: AnyClass) -> Set<Scope> {
        var scopes: Set<Scope> = []
        for c in lineage(of: type) {
            scopes.insert(.type(ObjectIdentifier(c)))
            let full = String(reflecting: c)
            scopes.insert(.name(full))
            scopes.insert(.name(TypeName.name(full)))
        }
        return scopes
    }

    /// `type`, then its superclasses (the standard library's `_getSuperclass`: the portable way on Linux).
    static func lineage(of type: AnyClass) -> [AnyClass] {
        var out: [AnyClass] = []
        var current: AnyClass? = type
        while let c = current {
            out.append(c)
            current = _getSuperclass(c)
        }
        return out
    }

    static func isSubclass(_ a: AnyClass, of b: AnyClass) -> Bool {
        lineage(of: a).contains { ObjectIdentifier($0) == ObjectIdentifier(b) }
    }
}

/// What `AspectRegistry.hook` returns; removing it removes the advice.
public struct AspectToken: Sendable, Hashable {
    public let id: UInt64
    let registry: AspectRegistry

    /// Removes the advice; false when it was already removed.
    @discardableResult
    public func remove() -> Bool { registry.remove(self) }

    public static func == (a: AspectToken, b: AspectToken) -> Bool { a.id == b.id && a.registry === b.registry }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// The value an `instead` advice that neither proceeds nor sets a result leaves: zero, false,
/// empty, nil (Aspects returns a zeroed buffer).
enum ZeroValue {
    static func of<T>(_ type: T.Type) -> T? {
        if let nothing = () as? T { return nothing }
        if let t = type as? any ExpressibleByNilLiteral.Type { return t.init(nilLiteral: ()) as? T }
        if let t = type as? any AdditiveArithmetic.Type { return t.zero as? T }
        if T.self == Bool.self { return false as? T }
        if let t = type as? any RangeReplaceableCollection.Type { return t.init() as? T }
        return nil
    }
}
