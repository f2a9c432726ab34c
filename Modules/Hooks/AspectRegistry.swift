import Reporters
import Synchronization
import SystemCalls
import ViewIdentity

/// Where advice runs relative to the original method.
public enum AspectPosition: String, Sendable, Hashable {
    case before, after, instead
}

/// Before / after / instead advice on hookable methods, found by type and method name (Aspects, in Swift).
///
/// A method is hookable when its implementation runs through `invoke`; the object model's
/// lifecycle and action methods do, and app code can make its own methods hookable the same way.
/// Advice registered on a class applies to its subclasses, as a swizzled method does. Several
/// advices on one method run in order of registration: befores, then the insteads (the first
/// registered outermost, each able to `proceed()` to the next and finally to the original), then
/// afters. An advice that throws is reported through `diagnostics` and never breaks the call: a
/// throwing instead advice that did not proceed is followed by the original.
///
/// Registration is thread-safe; calls take the lock only to read a cached list of advices.
/// UI objects capture `AspectRegistry.current` when created (the process-wide `shared` unless a
/// test or a session binds its own with `AspectRegistry.$current.withValue`).
public final class AspectRegistry: Sendable {
    /// How an advice names the classes it applies to.
    enum Scope: Sendable, Hashable {
        /// This class and its subclasses.
        case type(ObjectIdentifier)
        /// Classes whose name, with or without module prefix, is this (for configuration files).
        case name(String)
    }

    struct Advice: Sendable {
        let id: UInt64
        let scope: Scope
        let scopeDescription: String
        let method: String
        let position: AspectPosition
        let body: @Sendable (AspectInvocation) throws -> Void
    }

    /// The advices that apply to one method of one concrete class, in registration order.
    struct Resolved: Sendable {
        var before: [Advice] = []
        var instead: [Advice] = []
        var after: [Advice] = []
        var isEmpty: Bool { before.isEmpty && instead.isEmpty && after.isEmpty }
    }

    struct CacheKey: Hashable {
        let type: ObjectIdentifier
        let method: String
    }

    struct State {
        var nextID: UInt64 = 1
        var byMethod: [String: [Advice]] = [:]
        var cache: [CacheKey: Resolved] = [:]
    }

    private let state = Mutex(State())
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

    /// How many advices are registered.
    public var count: Int { adviceCount.load(ordering: .acquiring) }

    /// Adds advice on `method` of `type` and its subclasses.
    @discardableResult
    public func hook<T: AnyObject>(
        _ type: T.Type, _ method: String, position: AspectPosition,
        _ body: @escaping @Sendable (AspectInvocation) throws -> Void
    ) -> AspectToken {
        add(scope: .type(ObjectIdentifier(type)), description: String(reflecting: type), method: method, position: position, body: body)
    }

    /// Adds advice on `method` of the class named `typeName` (`HomeViewController` or `Shop.HomeViewController`)
    /// and its subclasses: how configuration files, which know classes only by name, hook methods.
    @discardableResult
    public func hook(
        typeNamed typeName: String, _ method: String, position: AspectPosition,
        _ body: @escaping @Sendable (AspectInvocation) throws -> Void
    ) -> AspectToken {
        add(scope: .name(typeName), description: typeName, method: method, position: position, body: body)
    }

    private func add(
        scope: Scope, description: String, method: String, position: AspectPosition,
        body: @escaping @Sendable (AspectInvocation) throws -> Void
    ) -> AspectToken {
        let id = state.withLock { s in
            let id = s.nextID
            s.nextID += 1
            s.byMethod[method, default: []].append(
                Advice(id: id, scope: scope, scopeDescription: description, method: method, position: position, body: body))
            s.cache.removeAll(keepingCapacity: true)
            return id
        }
        adviceCount.add(1, ordering: .releasing)
        return AspectToken(id: id, registry: self)
    }

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
            return false
        }
        if removed { adviceCount.subtract(1, ordering: .releasing) }
        return removed
    }

    /// Runs `original` as the hookable method `method` of `instance`, with the advices that apply.
    ///
    /// `arguments` are what advices see (built only when some advice is registered).
    public func invoke<R>(
        _ instance: AnyObject, _ method: String, arguments: @autoclosure () -> [Any] = [], original: () -> R
    ) -> R {
        if adviceCount.load(ordering: .acquiring) == 0 { return original() }
        let resolved = advices(for: instance, method: method)
        if resolved.isEmpty { return original() }
        return withoutActuallyEscaping(original) { original in
            let invocation = AspectInvocation(instance: instance, method: method, arguments: arguments())
            for advice in resolved.before { run(advice, invocation) }
            if resolved.instead.isEmpty {
                invocation.returnValue = original()
            } else {
                runInstead(resolved.instead[...], invocation, original: { original() })
            }
            for advice in resolved.after { run(advice, invocation) }
            invocation.proceedBody = nil
            if let value = invocation.returnValue as? R { return value }
            if let nothing = () as? R { return nothing }
            // An instead advice that neither proceeded nor set a value of the right type: the
            // original result is the only honest answer.
            return original()
        }
    }

    private func runInstead(_ chain: ArraySlice<Advice>, _ invocation: AspectInvocation, original: @escaping () -> Any) {
        guard let advice = chain.first else {
            invocation.returnValue = original()
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

    /// The advices for `method` on the concrete class of `instance`, cached per class.
    func advices(for instance: AnyObject, method: String) -> Resolved {
        let dynamicType: AnyClass = type(of: instance)
        let key = CacheKey(type: ObjectIdentifier(dynamicType), method: method)
        return state.withLock { s in
            if let hit = s.cache[key] { return hit }
            var resolved = Resolved()
            if let list = s.byMethod[method] {
                let lineage = AspectRegistry.lineage(of: dynamicType)
                for advice in list where lineage.contains(advice.scope) {
                    switch advice.position {
                    case .before: resolved.before.append(advice)
                    case .instead: resolved.instead.append(advice)
                    case .after: resolved.after.append(advice)
                    }
                }
            }
            s.cache[key] = resolved
            return resolved
        }
    }

    /// A class and its superclasses, by identity and by name (full and without module prefix).
    static func lineage(of type: AnyClass) -> Set<Scope> {
        var scopes: Set<Scope> = []
        var current: AnyClass? = type
        while let c = current {
            scopes.insert(.type(ObjectIdentifier(c)))
            let full = String(reflecting: c)
            scopes.insert(.name(full))
            scopes.insert(.name(TypeName.stripModulePrefix(full)))
            current = _getSuperclass(c)
        }
        return scopes
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

/// One call of a hooked method, as advice sees it.
///
/// Lives only for the call: it belongs to the UI thread, like the instance it names.
public final class AspectInvocation {
    /// The object whose method is called.
    public let instance: AnyObject
    /// The method's selector-style name.
    public let method: String
    /// The call's arguments, in order.
    public let arguments: [Any]
    /// Where the running advice sits.
    public internal(set) var position: AspectPosition = .before
    /// The result: set by the original, or by an instead advice that replaces it.
    public var returnValue: Any?
    var proceedBody: (() -> Void)?

    init(instance: AnyObject, method: String, arguments: [Any]) {
        self.instance = instance
        self.method = method
        self.arguments = arguments
    }

    /// The instance as `T`, nil when it is of another type.
    public func instance<T>(as type: T.Type) -> T? { instance as? T }

    /// The argument at `index` as `T`, nil when absent or of another type.
    public func argument<T>(_ index: Int, as type: T.Type) -> T? {
        index < arguments.count ? arguments[index] as? T : nil
    }

    /// From an instead advice: runs the next instead advice, or the original. Runs at most once.
    public func proceed() {
        proceedBody?()
    }
}

/// An advice threw; the call went on without it.
public struct AspectFailure: Sendable, Hashable, CustomStringConvertible {
    public var typeName: String
    public var method: String
    public var position: AspectPosition
    public var error: String

    public init(typeName: String, method: String, position: AspectPosition, error: String) {
        self.typeName = typeName
        self.method = method
        self.position = position
        self.error = error
    }

    public var description: String {
        "autotrack: \(position.rawValue) advice on -[\(typeName) \(method)] threw: \(error). "
            + "The original method ran; fix or remove the advice."
    }

    /// The default diagnostics: one line on standard error.
    @Sendable public static func writeToStandardError(_ failure: AspectFailure) {
        Posix.writeToStandardError(failure.description + "\n")
    }
}
