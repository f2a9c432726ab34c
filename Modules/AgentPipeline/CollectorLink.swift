public import ATLPClient
public import ATLPWire
public import SecureChannel
public import SystemCalls

/// The collectors an agent talks to, as whom and over what: every connection of a tracking
/// pipeline (events, rules, snapshots) and of `send` is made from one link, so they all say the
/// same `HELLO` to the same collectors, in the same failover order, over the same TLS.
public struct CollectorLink: Sendable {
    /// The collectors, first one first; never empty.
    public var addresses: [SocketAddress]
    public var hello: Hello
    /// TLS (`TLSContext.client(trusting:).channels` from ATLPTLS); nil for plain TCP.
    public var security: SecureChannelFactory?

    public init(addresses: [SocketAddress], hello: Hello, security: SecureChannelFactory? = nil) {
        precondition(!addresses.isEmpty, "a collector link needs a collector address")
        self.addresses = addresses
        self.hello = hello
        self.security = security
    }

    /// The shipper's configuration for these collectors: events spooled in `spool`, a batch cut
    /// at `batchMaxEvents` or after `batchInterval`, reconnects backing off per `backoff`.
    public func shipping(spool: String, batchMaxEvents: Int = 500, batchInterval: Duration, backoff: Backoff)
        -> EventShipperConfiguration
    {
        var configuration = EventShipperConfiguration(
            address: addresses[0], failover: Array(addresses.dropFirst()), hello: hello, spoolDirectory: spool,
            batchMaxEvents: batchMaxEvents, batchInterval: batchInterval, backoff: backoff)
        configuration.security = security
        return configuration
    }

    /// The collectors as the tracker's source of rules (`CONFIG`).
    public var rulesSource: ATLPRulesSource { ATLPRulesSource(addresses: addresses, hello: hello, security: security) }

    /// A sender of page snapshots to these collectors, on a connection of its own (circle mode);
    /// each names the device `device` gives (the tracker's: `{ tracker.identity.namedDevice }`).
    public func snapshotSender(device: @escaping @Sendable () -> String?) -> ATLPSnapshotSender {
        ATLPSnapshotSender(addresses: addresses, hello: hello, security: security, device: device)
    }
}
