public import EventModel

/// Drops every event: the default before a reporting system is bootstrapped, and the baseline of benchmarks.
public struct NoOpReporter: Reporter {
    public init() {}
    public func report(_ event: TrackEvent) {}
}
