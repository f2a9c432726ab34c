public import ATLPWire
public import SecureChannel
public import SystemCalls

/// How an `EventShipper` batches, spools and delivers.
public struct EventShipperConfiguration: Sendable {
    /// The collectors, in order: delivery stays on one while it answers and fails over to the
    /// next (round robin) when a connection cannot be made or is lost. Never empty.
    public var addresses: [SocketAddress]
    /// The first collector; setting it makes it the only one.
    public var address: SocketAddress {
        get { addresses[0] }
        set { addresses = [newValue] }
    }
    /// Sent on every (re)connect.
    public var hello: Hello
    /// The spool folder; one shipper per folder at a time (a second one gets `SpoolError.io`).
    public var spoolDirectory: String
    /// A batch is cut at this many events...
    public var batchMaxEvents: Int
    /// ...or at this many bytes of event JSON...
    public var batchMaxBytes: Int
    /// ...or when its first event is this old.
    public var batchInterval: Duration
    /// The spool's bound; when reached, `enqueue` refuses events with `SpoolError.full`.
    public var maxSpoolBytes: Int
    /// Our largest frame; a bigger event is refused at `enqueue` (`eventTooLarge`).
    public var maxFrame: Int
    /// Batches sent before waiting for the oldest `ACK`.
    public var window: Int
    /// `window` unless told otherwise: the batches an agent keeps in flight on one connection
    /// (the benchmarks send with it, as the agent does).
    public static let defaultWindow = 4
    public var connectTimeout: Duration
    /// With batches in flight and no answer for this long, the connection is dropped and they are resent.
    public var ackTimeout: Duration
    public var backoff: Backoff
    /// TLS (e.g. `TLSContext.client(trusting:).channels` from ATLPTLS); nil for plain TCP.
    public var security: SecureChannelFactory? = nil

    /// `address` is the first collector, `failover` the others, tried in turn.
    public init(
        address: SocketAddress, failover: [SocketAddress] = [], hello: Hello, spoolDirectory: String, batchMaxEvents: Int = 500,
        batchMaxBytes: Int = 256 << 10, batchInterval: Duration = .seconds(1), maxSpoolBytes: Int = 64 << 20,
        maxFrame: Int = 1 << 20, window: Int = defaultWindow, connectTimeout: Duration = .seconds(5),
        ackTimeout: Duration = .seconds(30), backoff: Backoff = Backoff()
    ) {
        self.addresses = [address] + failover.filter { $0 != address }
        self.hello = hello
        self.spoolDirectory = spoolDirectory
        self.batchMaxEvents = batchMaxEvents
        self.batchMaxBytes = batchMaxBytes
        self.batchInterval = batchInterval
        self.maxSpoolBytes = maxSpoolBytes
        self.maxFrame = maxFrame
        self.window = window
        self.connectTimeout = connectTimeout
        self.ackTimeout = ackTimeout
        self.backoff = backoff
    }
}

extension EventShipperConfiguration {
    /// The collectors, for messages: `127.0.0.1:7070` or `127.0.0.1:7070, 127.0.0.1:7071`.
    public var collectorsDescription: String { addresses.map(\.description).joined(separator: ", ") }
}
