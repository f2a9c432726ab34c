@testable import Hooks
import Synchronization
import Testing

/// A hookable class outside the object model: no deinit of ours runs for it.
final class Pinger {
    let registry: AspectRegistry
    init(_ registry: AspectRegistry) { self.registry = registry }
    func ping() { registry.invoke(.ping, on: self, arguments: ()) {} }
}

extension HookPoint where Instance == Pinger, Arguments == Void, Result == Void {
    static var ping: Self { Self("ping") }
}

/// Advice on one object lives as long as the object: an object allocated later at its address
/// never runs it, and the registry shrinks as such objects go (docs/hooks.md).
@Suite struct ObjectAdviceLifetimeTests {
    private func makeGreeter(_ registry: AspectRegistry) -> Greeter {
        AspectRegistry.$current.withValue(registry) { Greeter() }
    }

    /// The audit's probe: 100 of 100 objects allocated at a freed object's address ran its advice.
    ///
    /// Whether the allocator hands the freed address out again depends on what the other tests'
    /// threads allocate meanwhile, so the experiment is repeated (at most 50 times) until it has
    /// seen the address reused at least once; the advice must never run for a newcomer in any.
    @Test func objectsAllocatedAtAFreedObjectsAddressDoNotRunItsAdvice() throws {
        var attemptsWithReuse = 0
        for _ in 0..<50 where attemptsWithReuse < 3 {
            let registry = AspectRegistry(diagnostics: { _ in })
            let trail = Trail()
            var address: ObjectIdentifier?
            do {
                let doomed = makeGreeter(registry)
                address = ObjectIdentifier(doomed)
                try registry.hook(.greet, onObject: doomed, position: .before) { _ in trail.add("greet") }
                try registry.hook(.dealloc, onObject: doomed as UIResponder, position: .before) { _ in trail.add("dealloc") }
                doomed.greet("mine")
            }
            #expect(trail.all == ["greet", "dealloc"], "its own advice runs, the dealloc advice in its deinit")
            if Self.allocatesAtAddress(address, count: 200, make: { makeGreeter(registry) }, use: { $0.greet("other") }) {
                attemptsWithReuse += 1
            }
            #expect(trail.all == ["greet", "dealloc"])
            #expect(registry.count == 0)
        }
        #expect(attemptsWithReuse > 0, "the allocator gave a freed address again (else this test proves nothing)")
    }

    /// The same for objects without a deinit of ours: the weak reference tells they are gone.
    @Test func objectsOutsideTheObjectModelDoNotPassTheirAdviceOn() throws {
        var attemptsWithReuse = 0
        for _ in 0..<50 where attemptsWithReuse < 3 {
            let registry = AspectRegistry(diagnostics: { _ in })
            let ran = Mutex(0)
            var address: ObjectIdentifier?
            do {
                let doomed = Pinger(registry)
                address = ObjectIdentifier(doomed)
                try registry.hook(.ping, onObject: doomed, position: .before) { _ in ran.withLock { $0 += 1 } }
                doomed.ping()
            }
            if Self.allocatesAtAddress(address, count: 200, make: { Pinger(registry) }, use: { $0.ping() }) {
                attemptsWithReuse += 1
            }
            #expect(ran.withLock { $0 } == 1)
            #expect(registry.count == 0)
        }
        #expect(attemptsWithReuse > 0, "the allocator gave a freed address again (else this test proves nothing)")
    }

    /// Allocates objects one after another (each freed before the next, which is when a
    /// thread-local allocator cache hands the same block back), calling `use` on each, and then
    /// `count` more held alive together (in case the block went to another size bucket's list);
    /// tells whether any of them sat at `address`.
    private static func allocatesAtAddress<T: AnyObject>(
        _ address: ObjectIdentifier?, count: Int, make: () -> T, use: (T) -> Void
    ) -> Bool {
        var reused = false
        for _ in 0..<count {
            let next = make()
            if ObjectIdentifier(next) == address { reused = true }
            use(next)
        }
        let together = (0..<count).map { _ in make() }
        for next in together {
            if ObjectIdentifier(next) == address { reused = true }
            use(next)
        }
        return reused
    }

    @Test func theRegistryShrinksAsObjectsWithAdviceGo() throws {
        let registry = AspectRegistry(diagnostics: { _ in })
        let keep = (0..<10).map { _ in Pinger(registry) }
        for p in keep { try registry.hook(.ping, onObject: p, position: .after) { _ in } }
        for _ in 0..<5_000 {
            let passing = Pinger(registry)
            try registry.hook(.ping, onObject: passing, position: .before) { _ in }
        }
        #expect(registry.objectsWithAdvice < 128, "swept as it grows: \(registry.objectsWithAdvice)")
        for _ in 0..<1_000 {
            let responder = makeGreeter(registry)  // a responder's deinit takes its advice with it
            try registry.hook(.greet, onObject: responder, position: .before) { _ in }
        }
        #expect(registry.objectsWithAdvice < 128)
        #expect(registry.count == 10)
        #expect(registry.objectsWithAdvice == 10)
        withExtendedLifetime(keep) {}
    }
}
