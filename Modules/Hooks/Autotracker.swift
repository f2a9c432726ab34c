public import Interactions
import Synchronization

/// The process-wide installation: hooks on `AspectRegistry.shared`, once, as an app does at launch.
///
/// Tests and tools create `HookSystem` instances of their own instead.
public enum Autotracker {
    private static let system = Mutex<HookSystem?>(nil)

    /// Starts hooking every UI object of the process for `observer`; allowed once per process.
    @discardableResult
    public static func install(
        observer: any InteractionObserver, clock: any InteractionClock = SystemInteractionClock()
    ) throws(AutotrackerError) -> HookSystem {
        let hooks = HookSystem(observer: observer, aspects: .shared, clock: clock)
        let ok = system.withLock { current in
            guard current == nil else { return false }
            current = hooks
            return true
        }
        guard ok else { throw AutotrackerError.alreadyInstalled }
        do {
            try hooks.start()
        } catch {
            system.withLock { $0 = nil }
            throw AutotrackerError.refused(error)
        }
        return hooks
    }

    /// The installed hook system, if any.
    public static var installed: HookSystem? { system.withLock { $0 } }
}

/// Misuse of the process-wide installation.
public enum AutotrackerError: Error, Sendable, Hashable, CustomStringConvertible {
    case alreadyInstalled
    /// The aspect registry refused one of the hooks (another class of a hierarchy already hooks the method).
    case refused(AspectError)

    public var description: String {
        switch self {
        case .alreadyInstalled:
            return "Autotracker.install was called twice; install once at launch, and give tests their own HookSystem instances"
        case .refused(let error):
            return "Autotracker.install could not hook: \(error)"
        }
    }
}
