package import SystemCalls

/// Why a new connection is refused; the protocol says it in its own words (`refusal(_:)`).
package enum RefusalCause: Sendable, Equatable {
    /// The process is out of file descriptors.
    case outOfDescriptors
    /// At `maxConnections` (`full`), at `maxConnectionsPerAddress` for `host` (`crowded`), or both.
    case limit(full: Bool, crowded: Bool, host: String)
}

/// What a protocol supplies to a `ConnectionLoop`, in four parts as a pipeline has handlers: a
/// decoder (per-connection state, bytes in, requests cut), a responder (requests handed to the
/// workers, answers queued), admission (who may connect, and what a refusal says) and deadlines
/// (its own clocks, and what stopping closes). The loop alone touches the sockets, the buffers, the
/// output cap, half-close, linger, the connection limits and stopping. Every part is called on
/// the loop's I/O thread only; answers are computed on the loop's workers
/// (`ConnectionLoop.answer(_:with:)`).
package protocol ConnectionProtocol: AnyObject {
    /// What the protocol keeps per connection (its decoder, its session, its clocks).
    associatedtype State
    /// One unit of work read from a connection: a request, or the error that ended its stream.
    associatedtype Item
    /// What a worker hands back for the I/O thread to send.
    associatedtype Answer: Sendable
    /// The counters the service shows.
    associatedtype Statistics: Sendable
    associatedtype Decoder: ConnectionDecoder where Decoder.P == Self
    associatedtype Responder: ConnectionResponder where Responder.P == Self
    associatedtype Admission: ConnectionAdmission where Admission.P == Self
    associatedtype Deadlines: ConnectionDeadlines where Deadlines.P == Self

    typealias Loop = ConnectionLoop<Self>

    var decoder: Decoder { get }
    var responder: Responder { get }
    var admission: Admission { get }
    var deadlines: Deadlines { get }
}

/// Bytes in: a connection's state, and how its bytes become requests.
package protocol ConnectionDecoder: AnyObject {
    associatedtype P: ConnectionProtocol
    /// The state of a connection just accepted.
    func makeState(peer: SocketAddress, now: ContinuousClock.Instant) -> P.State
    /// Whether the bytes buffered and not yet cut into requests leave room to read more (room for
    /// one whole request): the loop reads no more while false.
    func hasRoom(_ c: Connection<P>) -> Bool
    /// Takes plaintext bytes read from `c` (into its decoder; it may cut requests from them too).
    func received(_ bytes: UnsafeRawBufferPointer, on c: Connection<P>, loop: ConnectionLoop<P>)
    /// True when `c`'s first byte shows the client speaks another protocol (plain text on a TLS
    /// port, or TLS on a plain one) and the decoder answered it and finished `c`. Default: false.
    func refusesFirstByte(_ byte: UInt8, on c: Connection<P>, loop: ConnectionLoop<P>) -> Bool
}

/// Requests to answers: one at a time per connection, in order.
package protocol ConnectionResponder: AnyObject {
    associatedtype P: ConnectionProtocol
    /// Cuts requests from what `c` buffered and hands the next to a worker when none is being
    /// answered and its output is under the cap. Called after bytes arrive, after output moves,
    /// and at the end of the stream (the requests read before it are still answered).
    func advance(_ c: Connection<P>, loop: ConnectionLoop<P>)
    /// A worker's answer for `c` (its `answering` is false again): queue it and flush.
    func answered(_ answer: P.Answer, on c: Connection<P>, loop: ConnectionLoop<P>)
    /// While `c` finishes with nothing queued, answering or unsent: starts answering a complete
    /// request still buffered, if any (true: our side stays open for its answer). Default: false.
    func answersBufferedRequest(_ c: Connection<P>, loop: ConnectionLoop<P>) -> Bool
}

/// Who may connect: the words of a refusal, room made for a newcomer, the counts of the open.
package protocol ConnectionAdmission: AnyObject {
    associatedtype P: ConnectionProtocol
    /// The bytes that tell a client why it is refused, sent before closing (plain connections only).
    func refusal(_ cause: RefusalCause) -> [UInt8]
    /// Counts a refused connection.
    func countRefusal()
    /// A new connection arrives (`full`: at `maxConnections`; `crowded`: its address at
    /// `maxConnectionsPerAddress`): admission may close another connection to make room;
    /// returns whether the loop is still full. Default: `full`.
    func makeRoom(full: Bool, crowded: Bool, loop: ConnectionLoop<P>) -> Bool
    /// `c` was accepted and is open (not a refusal).
    func opened(_ c: Connection<P>, loop: ConnectionLoop<P>)
    /// `c` (not a refusal) was closed; its socket is gone.
    func closed(_ c: Connection<P>, loop: ConnectionLoop<P>)
}

/// The protocol's own clocks, looked at every sweep (about every 50 ms), and stopping.
package protocol ConnectionDeadlines: AnyObject {
    associatedtype P: ConnectionProtocol
    /// Called at the start of every sweep. Default: nothing.
    func sweepBegins(now: ContinuousClock.Instant, loop: ConnectionLoop<P>)
    /// The protocol's own deadlines for `c` (neither lingering nor idle past `idleTimeout`). Default: none.
    func sweep(_ c: Connection<P>, now: ContinuousClock.Instant, loop: ConnectionLoop<P>)
    /// `c` is closed for the loop's `idleTimeout`. Default: nothing.
    func closingIdle(_ c: Connection<P>)
    /// When the server stops: true closes `c` at once (nothing to answer or drain), false lets it
    /// finish what it read. Default: false.
    func closesAtStop(_ c: Connection<P>) -> Bool
}

extension ConnectionDecoder {
    package func refusesFirstByte(_ byte: UInt8, on c: Connection<P>, loop: ConnectionLoop<P>) -> Bool { false }
}

extension ConnectionResponder {
    package func answersBufferedRequest(_ c: Connection<P>, loop: ConnectionLoop<P>) -> Bool { false }
}

extension ConnectionAdmission {
    package func makeRoom(full: Bool, crowded: Bool, loop: ConnectionLoop<P>) -> Bool { full }
}

extension ConnectionDeadlines {
    package func sweepBegins(now: ContinuousClock.Instant, loop: ConnectionLoop<P>) {}
    package func sweep(_ c: Connection<P>, now: ContinuousClock.Instant, loop: ConnectionLoop<P>) {}
    package func closingIdle(_ c: Connection<P>) {}
    package func closesAtStop(_ c: Connection<P>) -> Bool { false }
}
