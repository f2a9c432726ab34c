import SystemCalls

/// Why a new connection is refused; the protocol says it in its own words (`refusal(_:)`).
package enum RefusalCause: Sendable, Equatable {
    /// The process is out of file descriptors.
    case outOfDescriptors
    /// At `maxConnections` (`full`), at `maxConnectionsPerAddress` for `host` (`crowded`), or both.
    case limit(full: Bool, crowded: Bool, host: String)
}

/// What a protocol supplies to a `ConnectionLoop`: its per-connection state, how it cuts requests
/// from the bytes that arrive and answers them, what it says when it refuses a connection, its
/// own deadlines and counters. The loop owns the sockets, the buffers, the output cap, half-close,
/// linger, the connection limits and stopping. Called on the loop's I/O thread only; answers are
/// computed on the loop's workers (`ConnectionLoop.answer(_:with:)`).
package protocol ConnectionProtocol: AnyObject {
    /// What the protocol keeps per connection (its decoder, its session, its clocks).
    associatedtype State
    /// One unit of work read from a connection: a request, or the error that ended its stream.
    associatedtype Item
    /// What a worker hands back for the I/O thread to send.
    associatedtype Answer: Sendable
    /// The counters the service shows.
    associatedtype Statistics: Sendable

    typealias Loop = ConnectionLoop<Self>

    /// The state of a connection just accepted.
    func makeState(peer: SocketAddress, now: ContinuousClock.Instant) -> State
    /// Whether the bytes buffered and not yet cut into requests leave room to read more (room for
    /// one whole request): the loop reads no more while false.
    func hasRoom(_ c: Connection<Self>) -> Bool
    /// Takes plaintext bytes read from `c` (into its decoder; it may cut requests from them too).
    func received(_ bytes: UnsafeRawBufferPointer, on c: Connection<Self>, loop: Loop)
    /// Cuts requests from what `c` buffered and hands the next to a worker when none is being
    /// answered and its output is under the cap. Called after bytes arrive, after output moves,
    /// and at the end of the stream (the requests read before it are still answered).
    func advance(_ c: Connection<Self>, loop: Loop)
    /// A worker's answer for `c` (its `answering` is false again): queue it and flush.
    func answered(_ answer: Answer, on c: Connection<Self>, loop: Loop)
    /// The bytes that tell a client why it is refused, sent before closing (plain connections only).
    func refusal(_ cause: RefusalCause) -> [UInt8]
    /// Counts a refused connection.
    func countRefusal()

    /// True when `c`'s first byte shows the client speaks another protocol (plain text on a TLS
    /// port, or TLS on a plain one) and the protocol answered it and finished `c`. Default: false.
    func refusesFirstByte(_ byte: UInt8, on c: Connection<Self>, loop: Loop) -> Bool
    /// While `c` finishes with nothing queued, answering or unsent: starts answering a complete
    /// request still buffered, if any (true: our side stays open for its answer). Default: false.
    func answersBufferedRequest(_ c: Connection<Self>, loop: Loop) -> Bool
    /// A new connection arrives (`full`: at `maxConnections`; `crowded`: its address at
    /// `maxConnectionsPerAddress`): the protocol may close another connection to make room;
    /// returns whether the loop is still full. Default: `full`.
    func makeRoom(full: Bool, crowded: Bool, loop: Loop) -> Bool
    /// `c` was accepted and is open (not a refusal).
    func opened(_ c: Connection<Self>, loop: Loop)
    /// `c` (not a refusal) was closed; its socket is gone.
    func closed(_ c: Connection<Self>, loop: Loop)
    /// Called at the start of every sweep (about every 50 ms). Default: nothing.
    func sweepBegins(now: ContinuousClock.Instant, loop: Loop)
    /// The protocol's own deadlines for `c` (neither lingering nor idle past `idleTimeout`). Default: none.
    func sweep(_ c: Connection<Self>, now: ContinuousClock.Instant, loop: Loop)
    /// `c` is closed for the loop's `idleTimeout`. Default: nothing.
    func closingIdle(_ c: Connection<Self>)
    /// When the server stops: true closes `c` at once (nothing to answer or drain), false lets it
    /// finish what it read. Default: false.
    func closesAtStop(_ c: Connection<Self>) -> Bool
}

extension ConnectionProtocol {
    package func refusesFirstByte(_ byte: UInt8, on c: Connection<Self>, loop: Loop) -> Bool { false }
    package func answersBufferedRequest(_ c: Connection<Self>, loop: Loop) -> Bool { false }
    package func makeRoom(full: Bool, crowded: Bool, loop: Loop) -> Bool { full }
    package func sweepBegins(now: ContinuousClock.Instant, loop: Loop) {}
    package func sweep(_ c: Connection<Self>, now: ContinuousClock.Instant, loop: Loop) {}
    package func closingIdle(_ c: Connection<Self>) {}
    package func closesAtStop(_ c: Connection<Self>) -> Bool { false }
}
