import Dispatch
import Hooks
import Synchronization
import Testing

/// A class with hookable methods, as app code writes them.
class Greeter: UIResponder {
    var log: [String] = []

    required override init() {
        super.init()
    }

    func greet(_ name: String) {
        hookable("greet:", arguments: [name]) { log.append("greet \(name)") }
    }

    func double(_ x: Int) -> Int {
        hookable("double:", arguments: [x]) { x * 2 }
    }
}

final class LoudGreeter: Greeter {}

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

    @Test func beforeInsteadAfterRunInOrderOfRegistration() {
        let registry = AspectRegistry(diagnostics: { _ in })
        let trail = Trail()
        let g = makeGreeter(registry)
        registry.hook(Greeter.self, "greet:", position: .after) { _ in trail.add("after1") }
        registry.hook(Greeter.self, "greet:", position: .before) { inv in trail.add("before1 \(inv.argument(0, as: String.self)!)") }
        registry.hook(Greeter.self, "greet:", position: .instead) { inv in
            trail.add("instead1 in")
            inv.proceed()
            trail.add("instead1 out")
        }
        registry.hook(Greeter.self, "greet:", position: .before) { _ in trail.add("before2") }
        registry.hook(Greeter.self, "greet:", position: .instead) { inv in
            trail.add("instead2")
            inv.proceed()
            inv.proceed()  // a second proceed does nothing
        }
        registry.hook(Greeter.self, "greet:", position: .after) { _ in trail.add("after2") }
        g.greet("Ada")
        #expect(trail.all == ["before1 Ada", "before2", "instead1 in", "instead2", "instead1 out", "after1", "after2"])
        #expect(g.log == ["greet Ada"])
    }

    @Test func insteadReplacesTheOriginalAndItsResult() {
        let registry = AspectRegistry(diagnostics: { _ in })
        let g = makeGreeter(registry)
        #expect(g.double(4) == 8)
        let token = registry.hook(Greeter.self, "double:", position: .instead) { inv in
            inv.returnValue = 100 + (inv.argument(0, as: Int.self) ?? 0)
        }
        registry.hook(Greeter.self, "greet:", position: .instead) { _ in }
        #expect(g.double(4) == 104)
        g.greet("Bob")
        #expect(g.log.isEmpty)
        token.remove()
        #expect(g.double(4) == 8)
    }

    @Test func removalByTokenRemovesOnlyThatAdvice() {
        let registry = AspectRegistry(diagnostics: { _ in })
        let trail = Trail()
        let g = makeGreeter(registry)
        let a = registry.hook(Greeter.self, "greet:", position: .before) { _ in trail.add("a") }
        registry.hook(Greeter.self, "greet:", position: .before) { _ in trail.add("b") }
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
        registry.hook(Greeter.self, "greet:", position: .before) { _ in throw AdviceError() }
        registry.hook(Greeter.self, "greet:", position: .instead) { _ in throw AdviceError() }
        registry.hook(Greeter.self, "greet:", position: .after) { _ in trail.add("after ran") }
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

    @Test func adviceOnAClassAppliesToSubclassesAndByName() {
        let registry = AspectRegistry(diagnostics: { _ in })
        let trail = Trail()
        let plain = makeGreeter(registry)
        let loud = makeGreeter(registry, LoudGreeter.self)
        registry.hook(Greeter.self, "greet:", position: .before) { inv in trail.add("any \(inv.argument(0, as: String.self)!)") }
        registry.hook(LoudGreeter.self, "greet:", position: .before) { _ in trail.add("loud only") }
        registry.hook(typeNamed: "LoudGreeter", "greet:", position: .after) { _ in trail.add("by name") }
        plain.greet("p")
        loud.greet("l")
        #expect(trail.all == ["any p", "any l", "loud only", "by name"])
    }

    @Test func objectsOfAnotherRegistryAreNotAffected() {
        let mine = AspectRegistry(diagnostics: { _ in })
        let other = AspectRegistry(diagnostics: { _ in })
        let trail = Trail()
        let g = makeGreeter(other)
        mine.hook(Greeter.self, "greet:", position: .before) { _ in trail.add("should not run") }
        g.greet("z")
        #expect(trail.all.isEmpty)
        #expect(g.aspects === other)
    }

    @Test func concurrentRegistrationFromSeveralThreads() {
        let registry = AspectRegistry(diagnostics: { _ in })
        let calls = Atomic<Int>(0)
        let tokens = Mutex<[AspectToken]>([])
        let threads = 8
        let perThread = 50
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            for i in 0..<perThread {
                let token = registry.hook(Greeter.self, "greet:", position: i % 2 == 0 ? .before : .after) { _ in
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

    @Test func theObjectModelsOwnMethodsAreHookable() {
        let registry = AspectRegistry(diagnostics: { _ in })
        let trail = Trail()
        registry.hook(UIViewController.self, HookPoint.viewDidAppear, position: .before) { inv in
            trail.add("appear \(inv.argument(0, as: Bool.self)!)")
        }
        registry.hook(UIControl.self, HookPoint.sendAction, position: .instead) { inv in
            trail.add("send \(inv.argument(0, as: ActionName.self)!)")
        }
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
}
