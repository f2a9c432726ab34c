public import EventModel
public import Reporters

/// The reporter plugin point's network end: each event goes to an `EventShipper` (disk
/// spool, batches, acknowledged delivery to a collector over ATLP/1).
public struct SpooledATLPReporter: Reporter {
    public let shipper: EventShipper
    /// How long `flush()` waits for acknowledgements before throwing.
    public var flushTimeout: Duration

    public init(shipper: EventShipper, flushTimeout: Duration = .seconds(10)) {
        self.shipper = shipper
        self.flushTimeout = flushTimeout
    }

    /// Opens the spool and starts delivering to `configuration.addresses`.
    public init(configuration: EventShipperConfiguration, flushTimeout: Duration = .seconds(10)) throws(SpoolError) {
        self.init(shipper: try EventShipper(configuration: configuration), flushTimeout: flushTimeout)
    }

    /// Spools the event; throws `SpoolError` when the spool refuses it (full, closed).
    public func report(_ event: TrackEvent) throws {
        try shipper.enqueue(event)
    }

    /// Waits until everything reported is acknowledged; throws `TransportError.timedOut`
    /// otherwise (the events stay spooled and are delivered later).
    public func flush() throws {
        guard shipper.flush(timeout: flushTimeout) else {
            let s = shipper.statistics
            let why = s.lastError.map { "; last error: \($0)" } ?? ""
            throw TransportError(
                .timedOut,
                "\(s.pendingEvents) events not yet acknowledged by \(shipper.configuration.collectorsDescription) after \(flushTimeout)"
                    + "; they stay in \(shipper.configuration.spoolDirectory)\(why)")
        }
    }
}
