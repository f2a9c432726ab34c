public import EventModel

/// Where events go: the one extension point for delivery (console, file, TCP, memory...).
///
/// `report` is called from the reporting system's own thread, never the app's, so an
/// implementation may block briefly; it must not call back into the hooks. Implementations
/// ship beside the protocol: `NoOpReporter`, `MultiplexReporter` (fan-out), `MemoryReporter`
/// (test kit), `ConsoleReporter` and `JSONLinesFileReporter`.
public protocol Reporter: Sendable {
    /// Takes one event. Throwing marks the reporter as failing; the others go on.
    func report(_ event: TrackEvent) throws
    /// Pushes out anything buffered. Called on shutdown and by tests.
    func flush() throws
}

extension Reporter {
    public func flush() throws {}
}
