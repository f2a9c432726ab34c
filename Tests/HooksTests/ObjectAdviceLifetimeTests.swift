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
    @Test func objectsAllocatedAtAFreedObjectsAddressDoNotRunItsAdvice() throws {
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
        var reused = 0
        for i in 0..<100 {
            let next = makeGreeter(registry)
            if ObjectIdentifier(next) == address { reused += 1 }
            next.greet("other \(i)")
        }
        #expect(reused > 0, "the allocator gave the freed address again (else this test proves nothing)")
        #expect(trail.all == ["greet", "dealloc"])
        #expect(registry.count == 0)
    }

    /// The same for objects without a deinit of ours: the weak reference tells they are gone.
    @Test func objectsOutsideTheObjectModelDoNotPassTheirAdviceOn() throws {
        let registry = AspectRegistry(diagnostics: { _ in })
        let ran = Mutex(0)
        var address: ObjectIdentifier?
        do {
            let doomed = Pinger(registry)
            address = ObjectIdentifier(doomed)
            try registry.hook(.ping, onObject: doomed, position: .before) { _ in ran.withLock { $0 += 1 } }
            doomed.ping()
        }
        var reused = 0
        for _ in 0..<100 {
            let next = Pinger(registry)
            if ObjectIdentifier(next) == address { reused += 1 }
            next.ping()
        }
        #expect(reused > 0, "the allocator gave the freed address again (else this test proves nothing)")
        #expect(ran.withLock { $0 } == 1)
        #expect(registry.count == 0)
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
