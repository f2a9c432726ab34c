import Synchronization

/// The one shape of every background worker of the collector and the agent, as
/// service-lifecycle's `Service` without async: started once, stopped with a grace period. What
/// a service holds when its grace period ends is left as a crash would leave it (a spool, a
/// log), for the next start to take up; each service says what that is. Its threads are
/// `ServiceThread`s (or a `ThreadPool`'s).
package protocol BackgroundService: AnyObject, Sendable {
    /// What the service is, for logs and for a stop that ran out of time ("event shipper").
    var serviceName: String { get }
    /// Starts the work on threads of its own; a second call does nothing. Throws when it cannot
    /// (an address that will not bind): nothing of it then runs.
    func start() throws
    /// Finishes what the service holds within `grace`, gives up the rest, and waits for its
    /// threads to return; true when they did in time. A service never started, or stopped
    /// already, returns true at once.
    @discardableResult
    func stop(grace: Duration) -> Bool
}

/// Services run as one, as service-lifecycle's `ServiceGroup`: started in the order given (each
/// may use those before it), stopped in the reverse order within one grace period shared by all,
/// so what feeds another stops before it.
package final class ServiceGroup: Sendable {
    package let services: [any BackgroundService]
    private let started = Mutex(false)

    package init(_ services: [any BackgroundService]) {
        self.services = services
    }

    /// Starts every service, in order; a second call does nothing. When one cannot start, those
    /// started before it are stopped (the last first, within `grace`) and its error is thrown.
    package func start(grace: Duration = .seconds(10)) throws {
        guard started.withLock({ s in defer { s = true }; return !s }) else { return }
        for (i, service) in services.enumerated() {
            do {
                try service.start()
            } catch {
                let deadline = ContinuousClock.now + grace
                for earlier in services[..<i].reversed() { earlier.stop(grace: max(.zero, deadline - ContinuousClock.now)) }
                throw error
            }
        }
    }

    /// Stops every service, the last started first, each with what is left of `grace`; returns
    /// the names of those whose threads had not returned when it ran out.
    @discardableResult
    package func stop(grace: Duration) -> [String] {
        let deadline = ContinuousClock.now + grace
        var late: [String] = []
        for service in services.reversed() where !service.stop(grace: max(.zero, deadline - ContinuousClock.now)) {
            late.append(service.serviceName)
        }
        return late
    }
}
