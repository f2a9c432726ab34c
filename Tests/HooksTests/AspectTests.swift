import Dispatch
import Hooks
import Interactions
import Synchronization
import Testing

/// A class with hookable methods, as app code writes them: hook points and a method table.
class Greeter: UIResponder {
    var log: [String] = []

    required override init() {
        super.init()
    }

    override class var hookPoints: [AnyHookPoint] { super.hookPoints + [HookPoint.greet.erased, HookPoint.double.erased] }

    func greet(_ name: String) {
        hookable(.greet, name) { log.append("greet \(name)") }
    }

    func double(_ x: Int) -> Int {
        hookable(.double, x) { x * 2 }
    }
}

extension HookPoint where Instance == Greeter, Arguments == String, Result == Void {
    static var greet: Self { Self("greet:") }
}

extension HookPoint where Instance == Greeter, Arguments == Int, Result == Int {
    static var double: Self { Self("double:") }
}

final class LoudGreeter: Greeter {
    /// An override that calls `super`, both hookable: advice must still run once per call.
    override func greet(_ name: String) {
        hookable(.greet, name) { super.greet(name.uppercased()) }
    }
}

/// Collects what advice saw; Sendable because tests call it from advice closures.
final class Trail: Sendable {
    private let items = Mutex<[String]>([])
    func add(_ s: String) { items.withLock { $0.append(s) } }
    var all: [String] { items.withLock { $0 } }
}

struct AdviceError: Error, CustomStringConvertible {
    var description: String { "advice failed on purpose" }
}

@Suite struct AspectTests {
    private func makeGreeter<G: Greeter>(_ registry: AspectRegistry, _ type: G.Type = Greeter.self) -> G {
        AspectRegistry.$current.withValue(registry) { G() }
    }

    private func refusal(_ body: () throws(AspectError) -> AspectToken) -> AspectError.Code? {
        do {
            _ = try body()
            return nil
        } catch {
            return error.code
        }
    }

    @Test func beforeInsteadAfterRunInOrderOfRegistration() throws {
        let registry = AspectRegistry(diagnostics: { _ in })
        let trail = Trail()
        let g = makeGreeter(registry)
        try registry.hook(.greet, position: .after) { _ in trail.add("after1") }
        try registry.hook(.greet, position: .before) { call in trail.add("before1 \(call.arguments)") }
        try registry.hook(.greet, position: .instead) { call in
            trail.add("instead1 in")
            call.proceed()
            trail.add("instead1 out")
        }
        try registry.hook(.greet, position: .instead) { call in
            trail.add("instead2")
            call.proceed()
            call.proceed()  // at most once
        }
        try registry.hook(.greet, position: .before) { _ in trail.add("before2") }
        try registry.hook(.greet, position: .after) { _ in trail.add("after2") }
        g.greet("Ada")
        #expect(trail.all == ["before1 Ada", "before2", "instead1 in", "instead2", "instead1 out", "after1", "after2"])
        #expect(g.log == ["greet Ada"])
    }

    @Test func insteadReplacesTheOriginalAndItsResult() throws {
        let registry = AspectRegistry(diagnostics: { _ in })
        let g = makeGreeter(registry)
        #expect(g.double(4) == 8)
        let token = try registry.hook(.double, position: .instead) { call in call.returnValue = 100 + call.arguments }
        try registry.hook(.greet, position: .instead) { _ in }
        #expect(g.double(4) == 104)
        g.greet("Bob")
        #expect(g.log.isEmpty)
        token.remove()
        #expect(g.double(4) == 8)
    }

    @Test func removalByTokenRemovesOnlyThatAdvice() throws {
        let registry = AspectRegistry(diagnostics: { _ in })
        let trail = Trail()
        let g = makeGreeter(registry)
        let a = try registry.hook(.greet, position: .before) { _ in trail.add("a") }
        try registry.hook(.greet, position: .before) { _ in trail.add("b") }
        g.greet("x")
        #expect(a.remove())
        #expect(!a.remove())
        g.greet("y")
        #expect(trail.all == ["a", "b", "b"])
        #expect(registry.count == 1)
    }

    @Test func throwingAdviceIsReportedAndTheOriginalStillRuns() throws {
        let failures = Mutex<[AspectFailure]>([])
        let registry = AspectRegistry(diagnostics: { f in failures.withLock { $0.append(f) } })
        let trail = Trail()
        let g = makeGreeter(registry)
        try registry.hook(.greet, position: .before) { _ in throw AdviceError() }
        try registry.hook(.greet, position: .instead) { _ in throw AdviceError() }
        try registry.hook(.greet, position: .after) { _ in trail.add("after ran") }
        g.greet("Cy")
        #expect(g.log == ["greet Cy"])
        #expect(trail.all == ["after ran"])
        let seen = failures.withLock { $0 }
        try #require(seen.count == 2)
        #expect(seen.map(\.position) == [.before, .instead])
        #expect(seen[0].method == "greet:")
        #expect(seen[0].description.contains("-[HooksTests.Greeter greet:]"))
        #expect(seen[0].description.contains("advice failed on purpose"))
    }

    @Test func adviceOnAClassAppliesToSubclassesAndByName() throws {
        let registry = AspectRegistry(diagnostics: { _ in })
        let trail = Trail()
        let plain = makeGreeter(registry)
        let loud = makeGreeter(registry, LoudGreeter.self)
        try registry.hook(.greet, position: .before) { call in trail.add("any \(call.arguments)") }
        try registry.hook(typeNamed: "Greeter", "greet:", position: .after) { call in trail.add("by name \(call.arguments)") }
        plain.greet("p")
        loud.greet("l")
        #expect(trail.all == ["any p", "by name p", "any l", "by name l"])
        #expect(loud.log == ["greet L"])
    }

    @Test func objectsOfAnotherRegistryAreNotAffected() throws {
        let mine = AspectRegistry(diagnostics: { _ in })
        let other = AspectRegistry(diagnostics: { _ in })
        let trail = Trail()
        let g = makeGreeter(other)
        try mine.hook(.greet, position: .before) { _ in trail.add("should not run") }
        g.greet("z")
        #expect(trail.all.isEmpty)
        #expect(g.aspects === other)
    }

    @Test func concurrentRegistrationFromSeveralThreads() throws {
        let registry = AspectRegistry(diagnostics: { _ in })
        let calls = Atomic<Int>(0)
        let tokens = Mutex<[AspectToken]>([])
        let threads = 8
        let perThread = 50
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            for i in 0..<perThread {
                let token = try! registry.hook(.greet, position: i % 2 == 0 ? .before : .after) { _ in
                    calls.add(1, ordering: .relaxed)
                }
                tokens.withLock { $0.append(token) }
                // Readers run while writers register.
                if i % 10 == 0 { _ = registry.count }
                _ = t
            }
        }
        #expect(registry.count == threads * perThread)
        let g = makeGreeter(registry)
        g.greet("all")
        #expect(calls.load(ordering: .relaxed) == threads * perThread)
        let all = tokens.withLock { $0 }
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            for token in all[(t * perThread)..<((t + 1) * perThread)] { token.remove() }
        }
        #expect(registry.count == 0)
        g.greet("none")
        #expect(calls.load(ordering: .relaxed) == threads * perThread)
        #expect(g.log == ["greet all", "greet none"])
    }

    @Test func theObjectModelsOwnMethodsAreHookable() throws {
        let registry = AspectRegistry(diagnostics: { _ in })
        let trail = Trail()
        try registry.hook(.viewDidAppear, position: .before) { call in trail.add("appear \(call.arguments)") }
        try registry.hook(.sendAction, position: .instead) { call in trail.add("send \(call.arguments.0)") }
        let (window, button, log) = AspectRegistry.$current.withValue(registry) { () -> (UIWindow, UIButton, Log) in
            let window = UIWindow()
            window.rootViewController = UIViewController()
            window.makeKeyAndVisible()
            let button = UIButton()
            let log = Log()
            button.addTarget(log, action: "onTap:", for: .touchUpInside) { l, _ in l.count += 1 }
            return (window, button, log)
        }
        button.tap()
        #expect(trail.all == ["appear false", "send onTap:"])
        #expect(log.count == 0)  // the instead advice replaced the send
        _ = window
    }

    // MARK: Aspects parity

    @Test func perInstanceHookAffectsOnlyThatObjectAndIsRemovedWithItsToken() throws {
        let registry = AspectRegistry(diagnostics: { _ in })
        let trail = Trail()
        let mine = makeGreeter(registry)
        let other = makeGreeter(registry)
        let token = try registry.hook(.greet, onObject: mine, position: .before) { call in trail.add("mine \(call.arguments)") }
        mine.greet("a")
        other.greet("b")
        #expect(trail.all == ["mine a"])
        #expect(token.remove())
        mine.greet("c")
        #expect(trail.all == ["mine a"])
        #expect(registry.count == 0)
    }

    @Test func hookOnAMethodTheTypeDoesNotHaveIsRefused() {
        let registry = AspectRegistry(diagnostics: { _ in })
        registry.declare(Greeter.self)
        #expect(refusal { () throws(AspectError) in try registry.hook(typeNamed: "Greeter", "wave:", position: .before) { _ in } } == .unknownMethod)
        let wave = HookPoint<Greeter, String, Void>("wave:")
        #expect(refusal { () throws(AspectError) in try registry.hook(wave, position: .before) { _ in } } == .unknownMethod)
        #expect(refusal { () throws(AspectError) in try registry.hook(typeNamed: "NoSuchView", "greet:", position: .before) { _ in } } == .unknownType)
        #expect(registry.count == 0)
    }

    @Test func adviceWhoseSignatureCannotFitIsRefused() {
        let registry = AspectRegistry(diagnostics: { _ in })
        let wrongArguments = HookPoint<Greeter, Int, Void>("greet:")
        let wrongResult = HookPoint<Greeter, Int, String>("double:")
        #expect(refusal { () throws(AspectError) in try registry.hook(wrongArguments, position: .before) { _ in } } == .signatureMismatch)
        #expect(refusal { () throws(AspectError) in try registry.hook(wrongResult, position: .after) { _ in } } == .signatureMismatch)
    }

    @Test func lifecycleMethodsThatMustNotBeHookedAreRefused() {
        let registry = AspectRegistry(diagnostics: { _ in })
        for method in ["retain", "release", "autorelease", "forwardInvocation:"] {
            let point = HookPoint<Greeter, Void, Void>(method)
            #expect(refusal { () throws(AspectError) in try registry.hook(point, position: .before) { _ in } } == .forbiddenMethod)
        }
    }

    @Test func insteadOnDeallocIsRefused() {
        let registry = AspectRegistry(diagnostics: { _ in })
        #expect(refusal { () throws(AspectError) in try registry.hook(.dealloc, position: .instead) { _ in } } == .insteadOnDealloc)
    }

    @Test func beforeAdviceOnDeallocRuns() throws {
        let registry = AspectRegistry(diagnostics: { _ in })
        let trail = Trail()
        try registry.hook(HookPoint.dealloc, on: Greeter.self, position: .before) { call in
            trail.add("dealloc \((call.instance as? Greeter)?.log.first ?? "")")
        }
        do {
            let g = makeGreeter(registry)
            g.greet("last")
        }
        #expect(trail.all == ["dealloc greet last"])
    }

    @Test func methodAlreadyHookedInTheSameClassHierarchyIsRefused() throws {
        let registry = AspectRegistry(diagnostics: { _ in })
        let superToken = try registry.hook(.greet, position: .before) { _ in }
        #expect(refusal { () throws(AspectError) in try registry.hook(HookPoint.greet, on: LoudGreeter.self, position: .before) { _ in } } == .alreadyHookedInHierarchy)
        // The same class again is fine; so is the subclass once the superclass's advice is gone.
        try registry.hook(.greet, position: .after) { _ in }.remove()
        superToken.remove()
        try registry.hook(HookPoint.greet, on: LoudGreeter.self, position: .before) { _ in }
        #expect(refusal { () throws(AspectError) in try registry.hook(.greet, position: .before) { _ in } } == .alreadyHookedInHierarchy)
    }

    @Test func automaticRemovalRunsTheAdviceOnceThenUnhooksIt() throws {
        let registry = AspectRegistry(diagnostics: { _ in })
        let trail = Trail()
        let g = makeGreeter(registry)
        try registry.hook(.greet, position: .before, options: .automaticRemoval) { call in trail.add("once \(call.arguments)") }
        g.greet("a")
        g.greet("b")
        #expect(trail.all == ["once a"])
        #expect(registry.count == 0)
        #expect(g.log == ["greet a", "greet b"])
    }

    @Test func adviceNeverRunsTwiceWhenAnOverrideCallsSuper() throws {
        let registry = AspectRegistry(diagnostics: { _ in })
        let trail = Trail()
        let loud = makeGreeter(registry, LoudGreeter.self)
        try registry.hook(.greet, position: .before) { call in trail.add("before \(call.arguments)") }
        try registry.hook(.greet, position: .after) { call in trail.add("after \(call.arguments)") }
        loud.greet("x")
        #expect(trail.all == ["before x", "after x"])
        #expect(loud.log == ["greet X"])
    }

    @Test func adviceWithAConditionAppliesOnlyToCallsWhereItHolds() throws {
        let registry = AspectRegistry(diagnostics: { _ in })
        let trail = Trail()
        let quiet = makeGreeter(registry)
        let loud = makeGreeter(registry, LoudGreeter.self)
        try registry.hook(.greet, position: .before, options: .automaticRemoval, when: { $0 is LoudGreeter }) { call in
            trail.add("once \(call.arguments)")
        }
        let loudID = ObjectIdentifier(loud)
        try registry.hook(.double, position: .instead, when: { ObjectIdentifier($0) == loudID }) { call in call.returnValue = -1 }
        quiet.greet("a")  // declined: runs bare, and the automatic removal waits for a call it applies to
        #expect(registry.count == 2)
        loud.greet("b")
        loud.greet("c")
        #expect(trail.all == ["once b"])
        #expect(registry.count == 1)
        #expect(quiet.log == ["greet a"])
        #expect(loud.log == ["greet B", "greet C"])
        #expect(quiet.double(21) == 42)
        #expect(loud.double(21) == -1)
    }

    @Test func afterAdviceMayReplaceTheResult() throws {
        let registry = AspectRegistry(diagnostics: { _ in })
        let g = makeGreeter(registry)
        try registry.hook(.double, position: .after) { call in
            if let r = call.returnValue { call.returnValue = r + 1 }
        }
        #expect(g.double(21) == 43)
    }

    @Test func insteadThatNeitherProceedsNorSetsAValueYieldsTheZeroValue() throws {
        let registry = AspectRegistry(diagnostics: { _ in })
        let g = makeGreeter(registry)
        try registry.hook(.double, position: .instead) { _ in }
        #expect(g.double(21) == 0)
    }
}
